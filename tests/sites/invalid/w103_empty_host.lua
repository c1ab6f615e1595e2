-- W103: a host with nothing to do.
--! W103 3 warning
host "web1.example.com" {}
host "web2.example.com" { file.has_content("/etc/motd", "hi\n") }
