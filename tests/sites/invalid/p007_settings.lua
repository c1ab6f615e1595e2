-- P007: one setting of one file given two values, and fixed content for a
-- file whose settings are edited that gives one another value; other
-- settings of a file agree.
--! W101 12
--! P007 13
--! P007 16
--! P007 18
host "settings.example.com" {
  os.debian("bookworm", "amd64"),
  conffile.key_value("/etc/ssh/sshd_config", "PermitRootLogin", "no", { sep = " " }),
  conffile.key_value("/etc/ssh/sshd_config", "PasswordAuthentication", "no", { sep = " " }),
  conffile.key_value("/etc/ssh/sshd_config", "PermitRootLogin", "no", { sep = " " }),
  conffile.key_value("/etc/ssh/sshd_config", "PermitRootLogin", "yes", { sep = " " }),
  conffile.ini_setting("/etc/app.ini", "main", "debug", "false"),
  conffile.ini_setting("/etc/app.ini", "other", "debug", "true"),
  conffile.ini_setting("/etc/app.ini", "main", "debug", "true"),
  conffile.key_value("/etc/default/app", "ENABLED", "yes", { sep = "=" }),
  file.has_content("/etc/default/app", "ENABLED=no\n"),
}
