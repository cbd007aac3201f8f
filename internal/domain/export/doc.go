// Package export owns writing a mapping's design in other tools' formats:
//
//   - CloudFormation: an AWS::DynamoDB::Table resource in a template (JSON)
//     with the table's keys, attribute definitions, global and local
//     indexes (multi-attribute global index keys as CreateTable takes them:
//     the partition attributes, HASH, then the sort attributes, RANGE),
//     billing and TTL — the table migrate --create-table makes.
//   - Terraform: an aws_dynamodb_table resource (HCL) with the same;
//     multi-attribute index keys are refused (the AWS provider's arguments
//     for them are not settled).
//   - NoSQL Workbench: a data model (the JSON Workbench imports and exports,
//     model format version 3.0) with the table, its global indexes, the
//     attributes of every entity with their types, one facet per access
//     pattern on the table, and sample items from real rows (a preview).
//     Workbench models have one partition and one sort key attribute per
//     index and no local indexes: a mapping with either is refused.
//
// Nothing here reads a database or talks to AWS: the caller compiles the
// mapping and, for Workbench, previews the rows.
package export
