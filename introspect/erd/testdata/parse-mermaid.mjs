// Reads Mermaid ER diagrams with Mermaid's own parser (no browser needed)
// and prints what Mermaid understood, one JSON line per file:
//   node parse-mermaid.mjs MERMAID_PACKAGE_DIR FILE...
// {"file", "entities": [{"name", "attributes": [{"type","name","keys","comment"}]}],
//  "relationships": [{"parent","child","parentCard","childCard","identifying","label"}]}
// A diagram that does not parse prints {"file", "error"} and exits 1.
// MERMAID_PACKAGE_DIR is the folder of the mermaid npm package.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, ...files] = process.argv.slice(2);
const { default: mermaid } = await import(pathToFileURL(join(dir, 'dist', 'mermaid.core.mjs')).href);
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  try {
    const r = await mermaid.parse(text);
    if (!r || r.diagramType !== 'er') {
      throw new Error(`diagram type ${r && r.diagramType}, want er`);
    }
    const db = (await mermaid.mermaidAPI.getDiagramFromText(text)).db;
    const byId = new Map();
    const entities = [];
    for (const [name, e] of db.getEntities()) {
      byId.set(e.id, name);
      entities.push({
        name,
        attributes: e.attributes.map((a) => ({ type: a.type, name: a.name, keys: a.keys, comment: a.comment })),
      });
    }
    // In "P ||--o{ C", Mermaid's cardB is P's side and cardA is C's side.
    const relationships = db.getRelationships().map((r) => ({
      parent: byId.get(r.entityA),
      child: byId.get(r.entityB),
      parentCard: r.relSpec.cardB,
      childCard: r.relSpec.cardA,
      identifying: r.relSpec.relType === 'IDENTIFYING',
      label: r.roleA,
    }));
    console.log(JSON.stringify({ file, entities, relationships }));
  } catch (e) {
    console.log(JSON.stringify({ file, error: String((e && e.message) || e) }));
    process.exit(1);
  }
}
