package cli

// verifyLong is verify's --help text.
const verifyLong = `verify checks a migrated table against the source, read from one snapshot:

  counts           source rows per entity (same where), less the rows accepted as
                   rejected, = items per entity in the table; and no stray item
                   (of no entity, or of no source row: named by key)
  items            every row (or a --sample-rate share) rendered and compared attribute
                   by attribute with the stored item, and every column attribute
                   compared with the source's own JSON rendering of the row (missing
                   and different items are named by key)
  access patterns  for --samples parameter values sampled from the source, the
                   Query (every page) returns exactly the items of the rows its SQL
                   returns; parameters are bound, never pasted into the SQL

--rejects FILE reads migrate's rejected-rows file: those rows are expected to
have no item (and it is a failure if one is in the table after all).

The report goes to stdout in --output's format (text, json, junit or
markdown). --output-file FORMAT=FILE also writes it to FILE in FORMAT (e.g.
--output-file junit=verify.xml --output-file markdown=$GITHUB_STEP_SUMMARY);
--output-file FILE writes FILE in the format its extension names (.json,
.xml for junit, .md, .txt) or else in --output's. A report is written even
when verify cannot finish.

Sampled parameters are fixed by --seed; without it a seed is drawn and
printed, so a failing run can be repeated with the same parameters.

Every request to DynamoDB has --request-timeout to be answered and is tried
3 times; connecting to the source and each set-up statement have
--source-timeout. Either failing ends verify with exit status 3.

Progress goes to stderr (--progress): the source counts, then, side by side,
the table scan, the rows the item check has read per entity (of the counted
rows; --readers entities at a time) and the samples checked per access
pattern.

--files s3://bucket/prefix/ checks migrate --to's ImportTable objects instead
of a table, before paying for the import: the manifest beside the prefix
(every object it lists present with its size and SHA-256, no other object
under the prefix, the same mapping file; a sharded job's manifests of one
split), then every object read: counts per
entity and every item against the source as above. Access patterns cannot
run against files: they are reported "not checked (files)". S3 is reached as
migrate --to reaches it (--profile, --region, AWS_ENDPOINT_URL_S3);
--files file:///abs/dir/prefix/ reads what migrate --to file:// wrote into a
local directory.

Unless GOGC or GOMEMLIMIT is set, verify collects its heap when it
reaches a soft memory limit of 64 MiB (GOGC=off): its peak memory is then
about the same at a million items as at a hundred million.

The exit status is 0 only when every check ran and passed.`

// verifyExamples are the examples verify's --help shows.
const verifyExamples = `  remodel verify --source $DSN -m mapping.yaml
  remodel verify --source $DSN -m mapping.yaml --rejects orders.remodel-rejects.jsonl --seed 7
  remodel verify --source $DSN -m mapping.yaml --output-file junit=verify.xml --output-file markdown=$GITHUB_STEP_SUMMARY
  remodel verify --source $DSN -m mapping.yaml --files s3://bucket/orders/`
