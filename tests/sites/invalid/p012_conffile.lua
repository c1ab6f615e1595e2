-- P012: bad arguments to the conffile recipes.
--! P012 12
--! P012 13
--! P012 14
--! P012 15
--! P012 16
--! P012 17
--! P012 18
--! P012 19
host "conf.example.com" {
  os.debian("bookworm", "amd64"),
  conffile.key_value("etc/foo.conf", "a", "b"),
  conffile.key_value("/etc/foo.conf", "two words", "b"),
  conffile.key_value("/etc/foo.conf", "a", "line\nbreak"),
  conffile.key_value("/etc/foo.conf", "a", " padded"),
  conffile.key_value("/etc/foo.conf", "a", "b", { sep = ":" }),
  conffile.key_value("/etc/foo.conf", "a", "b", { seperator = "=" }),
  conffile.ini_setting("/etc/app.ini", "sec]tion", "k", "v"),
  conffile.ini_setting("/etc/app.ini", "main", "k=v", 1.5),
}
