-- A misspelt recipe module is an undefined global with a suggestion.
--! fatal 4 (did you mean "file"?)
host "web1.example.com" {
  fiel.has_content("/etc/motd", "hi\n"),
}
