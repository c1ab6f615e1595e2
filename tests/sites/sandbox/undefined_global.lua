-- A misspelt global stops evaluation with a suggestion.
--! fatal 3 undefined global "hots" (did you mean "host"?)
hots "web1.example.com" {
  file.absent "/tmp/x",
}
