# DynamoDB table leaderboard of the remodel mapping mapping.yaml
resource "aws_dynamodb_table" "leaderboard" {
  name         = "leaderboard"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "Id"
  range_key    = "SK"

  attribute {
    name = "FriendIdAndWeek"
    type = "S"
  }

  attribute {
    name = "Id"
    type = "N"
  }

  attribute {
    name = "SK"
    type = "S"
  }

  attribute {
    name = "Score"
    type = "N"
  }

  attribute {
    name = "TopScore"
    type = "N"
  }

  attribute {
    name = "Week"
    type = "S"
  }

  local_secondary_index {
    name            = "PersonalBest"
    range_key       = "TopScore"
    projection_type = "ALL"
  }

  global_secondary_index {
    name               = "WeeklyRanking"
    hash_key           = "Week"
    range_key          = "TopScore"
    projection_type    = "INCLUDE"
    non_key_attributes = ["Name"]
  }

  global_secondary_index {
    name               = "FriendsRanking"
    hash_key           = "FriendIdAndWeek"
    range_key          = "Score"
    projection_type    = "INCLUDE"
    non_key_attributes = ["Name"]
  }
}
