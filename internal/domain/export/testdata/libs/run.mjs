// Reads a table that remodel migrated through the schemas remodel export
// wrote, with the libraries themselves (see scripts/export-libs.sh):
//
//   node run.mjs LIBS JOB.json
//
// LIBS is the folder holding node_modules (electrodb, dynamodb-onetable,
// @aws-sdk/*, typescript). JOB.json holds {endpoint, table, electrodb (the
// TypeScript module's path), onetable (the schema's path), calls: [{pattern,
// params}]}. The module is type-checked against ElectroDB's own types,
// compiled (type-checked when the job's typecheck is set), and each call runs the access pattern's function of the module
// and the finds that extensions.remodel.accessPatterns of the OneTable schema
// names (each with its index, reverse, limit and where). Prints {typeErrors, electrodb: [result per call], onetable: [...]},
// a result being {items} or {error}; with several entities, items is an
// object of entity name → items. The job's writes ([{lib: "electrodb" or
// "onetable", entity, item}]) are done first, each a put of a new item
// through that library's entity or model (ElectroDB's put, OneTable's
// create); their results ({} or {error}) are under writes. The job's gets
// ([{entity, props}]: an entity's name and its table key's properties)
// are each a get by key through ElectroDB's entity (reading with or
// without ownership as the module's own reads do) and OneTable's model;
// their results, {items} with the one item found or none, or {error}, are
// under gets.electrodb and gets.onetable.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [libs, jobFile] = process.argv.slice(2);
const job = JSON.parse(fs.readFileSync(jobFile, "utf8"));
const require = createRequire(path.join(libs, "package.json"));
const ts = require("typescript");
const { DynamoDBClient } = require("@aws-sdk/client-dynamodb");
const { DynamoDBDocumentClient } = require("@aws-sdk/lib-dynamodb");
const { Table } = require("dynamodb-onetable");

// Type-check and compile the module in a folder under LIBS, so that its
// imports resolve to LIBS/node_modules.
const work = fs.mkdtempSync(path.join(libs, "run-"));
const out = { typeErrors: [], electrodb: [], onetable: [], writes: [], gets: { electrodb: [], onetable: [] } };
try {
  const src = path.join(work, "schema.ts");
  fs.copyFileSync(job.electrodb, src);
  const options = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, types: [] };
  const program = job.typecheck ? ts.createProgram([src], options) : null;
  for (const d of program ? ts.getPreEmitDiagnostics(program) : []) {
    const where = d.file ? d.file.getLineAndCharacterOfPosition(d.start) : null;
    out.typeErrors.push((where ? `schema.ts:${where.line + 1}:${where.character + 1}: ` : "") + ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  }
  const js = ts.transpileModule(fs.readFileSync(src, "utf8"), { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
  fs.writeFileSync(path.join(work, "schema.mjs"), js);
  const mod = await import(pathToFileURL(path.join(work, "schema.mjs")).href);

  const client = new DynamoDBClient({ endpoint: job.endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  // An entity ElectroDB refuses fails every call, with its reason.
  let entities, refused;
  try {
    entities = mod.entities(DynamoDBDocumentClient.from(client), job.table);
  } catch (e) {
    refused = String(e && e.message || e);
  }
  const schema = JSON.parse(fs.readFileSync(job.onetable, "utf8"));
  const table = new Table({ client, name: job.table, schema, partial: false });

  for (const w of job.writes || []) {
    try {
      if (w.lib == "electrodb") {
        if (refused) throw new Error(refused);
        await entities[w.entity].put(w.item).go();
      } else {
        await table.getModel(w.entity).create(w.item, { exists: null });
      }
      out.writes.push({});
    } catch (e) {
      out.writes.push({ error: String(e && e.message || e) });
    }
  }
  for (const c of job.calls || []) {
    try {
      if (refused) throw new Error(refused);
      const f = mod.accessPatterns[c.pattern];
      if (!f) throw new Error(`the module has no access pattern ${c.pattern}`);
      out.electrodb.push({ items: await f(entities, c.params) });
    } catch (e) {
      out.electrodb.push({ error: String(e && e.message || e) });
    }
    try {
      const finds = schema.extensions.remodel.accessPatterns[c.pattern];
      if (!finds) throw new Error(`the schema has no access pattern ${c.pattern}`);
      const res = {};
      for (const f of finds) {
        const props = {};
        for (const [field, param] of Object.entries(f.properties)) props[field] = c.params[param];
        const model = table.getModel(f.model);
        const items = [];
        let next;
        do {
          const params = { reverse: f.reverse || false, next, limit: f.limit || undefined };
          if (f.index) params.index = f.index;
          if (f.where) params.where = f.where;
          const page = await model.find(props, params);
          items.push(...page);
          next = page.next;
        } while (next && !(f.limit && items.length >= f.limit));
        res[f.model] = f.limit ? items.slice(0, f.limit) : items;
      }
      out.onetable.push({ items: finds.length == 1 ? res[finds[0].model] : res });
    } catch (e) {
      out.onetable.push({ error: String(e && e.message || e) });
    }
  }
  const ignoreOwnership = /ignoreOwnership: true/.test(fs.readFileSync(src, "utf8"));
  for (const g of job.gets || []) {
    try {
      if (refused) throw new Error(refused);
      const e = entities[g.entity];
      if (!e) throw new Error(`the module has no entity ${g.entity}`);
      const { data } = await e.get(g.props).go({ ignoreOwnership });
      out.gets.electrodb.push({ items: data ? [data] : [] });
    } catch (e) {
      out.gets.electrodb.push({ error: String(e && e.message || e) });
    }
    try {
      if (!schema.models[g.entity]) throw new Error(`the schema has no model ${g.entity}`);
      const item = await table.getModel(g.entity).get(g.props);
      out.gets.onetable.push({ items: item ? [item] : [] });
    } catch (e) {
      out.gets.onetable.push({ error: String(e && e.message || e) });
    }
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(out, (k, v) => (typeof v == "bigint" ? Number(v) : v)));
