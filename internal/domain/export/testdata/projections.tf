# DynamoDB table projections of the remodel mapping projections.yaml
resource "aws_dynamodb_table" "projections" {
  name         = "projections"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "PK"
  range_key    = "SK"

  attribute {
    name = "GSI1PK"
    type = "S"
  }

  attribute {
    name = "GSI1SK"
    type = "S"
  }

  attribute {
    name = "GSI2PK"
    type = "S"
  }

  attribute {
    name = "PK"
    type = "S"
  }

  attribute {
    name = "SK"
    type = "S"
  }

  attribute {
    name = "day"
    type = "S"
  }

  attribute {
    name = "email"
    type = "S"
  }

  global_secondary_index {
    name            = "GSI1"
    hash_key        = "GSI1PK"
    range_key       = "GSI1SK"
    projection_type = "ALL"
  }

  global_secondary_index {
    name            = "GSI2"
    hash_key        = "GSI2PK"
    projection_type = "KEYS_ONLY"
  }

  global_secondary_index {
    name               = "ByEmail"
    hash_key           = "email"
    projection_type    = "INCLUDE"
    non_key_attributes = ["name", "status"]
  }

  local_secondary_index {
    name               = "ByDay"
    range_key          = "day"
    projection_type    = "INCLUDE"
    non_key_attributes = ["total"]
  }
}
