package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDBClient returns a client for DynamoDB Local at endpoint, with the
// static alphanumeric credentials DynamoDB Local wants.
func DynamoDBClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
	})
}

// DynamoDBTable returns a client for the test's DynamoDB Local and a unique
// table name; the table (if the test creates it) is deleted when the test ends.
func DynamoDBTable(t testing.TB) (*dynamodb.Client, string) {
	t.Helper()
	db := DynamoDBClient(DynamoDB(t))
	name := UniqueName("remodel_test")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return db, name
}

// AttrText is the text of the string or number attribute name of item it
// ("" when it has none, or one of another type).
func AttrText(it map[string]types.AttributeValue, name string) string {
	switch v := it[name].(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	}
	return ""
}
