-- P005: combinators joining properties that no single OS can run.
--! P005 4
--! P005 5
local web = apt.installed { "nginx" }:requires(pkg.installed { "curl" })
local both = props { apt.installed "vim", pkg.installed "vim" }

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  web,
  both,
}
