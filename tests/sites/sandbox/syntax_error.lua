-- A syntax error names the file and line.
--! fatal 5
host "web1.example.com" {
  os.debian("bookworm", "amd64")
  apt.installed { "nginx" },
}
