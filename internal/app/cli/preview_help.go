package cli

// previewLong is preview's --help text.
const previewLong = `preview renders the first --rows rows (in primary-key order) of every entity
through the mapping and prints the table definition, each entity's key
patterns and its items in DynamoDB JSON, and rows that would be rejected with
the reason. Nothing is written to DynamoDB; --output-file [FORMAT=]FILE also
writes what is printed to FILE (repeatable).

--document FILE writes the modeling definition document instead: the
source's ERD, the table and its indexes, each entity's key patterns and
attributes, each access pattern's key condition and the SQL it replaces,
and example data laid out per table and index, grouped by partition key:
a few item collections whole, every item of every entity whose table
partition key is one of them, as DynamoDB holds a partition (found among
the first --scan-rows rows of each entity). --partition VALUE (repeatable)
names them; without it --partitions N are chosen one at a time: the
partition holding most entities not shown yet, then the most entities,
then the most items (a partition larger than 25 items, or a grid of more
than 300, is cut, and what is not shown is counted). FILE ending in .md is Markdown (the ERD as a mermaid block),
in .html one self-contained HTML file that works offline; - writes Markdown
on stdout. Its section Data library files lists the files an
application's data library reads the table through: --export FORMAT=FILE
(repeatable; electrodb, onetable, dynamodb-mcp) writes each as export
--output FORMAT does, and the document links it by its path relative to
the document, with what the format cannot express; without it the section
gives the export command of each format. With --analyze too, the document
also holds the analysis of every row and the cost (see below), as its
sections Analysis and Cost.` + analyzeHelp

// previewExamples are the examples preview's --help shows.
const previewExamples = `  remodel preview --source $DSN --mapping mapping.yaml --rows 5
  remodel preview --source $DSN -m mapping.yaml --entity user --output json
  remodel preview --source $DSN -m mapping.yaml --document design.html --partition USER#42
  remodel preview --source $DSN -m mapping.yaml --document design.md --export electrodb=app/model.ts
  remodel preview --source $DSN -m mapping.yaml --analyze --rate-limit 4000 --output-file analysis.md
  remodel preview --source $DSN -m mapping.yaml --document design.html --analyze --traffic traffic.yaml`
