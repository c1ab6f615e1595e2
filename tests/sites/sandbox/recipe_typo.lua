-- A misspelt recipe stops evaluation with a suggestion.
--! fatal 5 apt has no recipe "instaled" (did you mean "installed"?)
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  apt.instaled { "nginx" },
}
