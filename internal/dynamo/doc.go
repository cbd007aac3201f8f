// Package dynamo sets up the DynamoDB client the commands share: the
// standard AWS configuration chain (region, credentials, and the endpoint
// from AWS_ENDPOINT_URL_DYNAMODB), with an optional explicit endpoint.
package dynamo
