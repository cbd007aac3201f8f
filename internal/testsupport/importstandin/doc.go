// Package importstandin owns a stand-in of DynamoDB's ImportTable API for
// tests and the bench: an HTTP server placed in front of DynamoDB Local,
// which has no ImportTable. It answers ImportTable, DescribeImport and
// ListImports as the API's contract says, and forwards every other request
// to DynamoDB Local as it came (its Authorization header too: DynamoDB
// Local keeps a database per access key and region).
//
// An import creates its table in DynamoDB Local (CreateTable with the
// request's TableCreationParameters), then reads every object under the
// request's bucket and prefix from the S3 the caller runs (gofakes3),
// decompresses it as InputCompressionType says, and puts its DYNAMODB_JSON
// lines into the table by BatchWriteItem, in the background: the import is
// IN_PROGRESS until then (Pace holds each object back that long, so that a
// test can stop the caller while the import runs), then COMPLETED with its
// counts. A ClientToken already seen is the same import, as the API
// promises; Started counts the imports started, Calls the ImportTable
// requests.
package importstandin
