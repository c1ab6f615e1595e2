-- P015: every use of a secret the store beside the site
-- (p015_secrets.secrets: db_password for web1 only, api_token for every
-- host) lacks for the host that uses it, found without any key; and P012
-- for a secret where only plain text makes sense.
local db = secret "db_password"
local token = secret "api_token"
local key = secret "other_key"

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/app/db", db),
  file.has_content("/etc/app/token", "token=" .. token .. "\n"),
}

host "web2.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/app/db", db),
  file.has_content("/etc/app/token", token),
  file.has_content("/etc/app/other", secret "missing_one"),
  file.has_content(db, "x"),
  apt.installed(token),
  cmd.run { "mysql", "-p", db },
  property { desc = "by hand", apply = function(sys) sys:write("/etc/app/key", key) end },
  file.has_content("/etc/app/x", secret "bad name"),
}

--! P015 17
--! P015 19
--! P012 20
--! P012 21
--! P012 22
--! P015 23
--! P012 24
--! P015 24
