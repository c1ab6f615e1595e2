-- P009 compares units, not names: on Debian sshd.service is an alias of
-- ssh.service and mysql.service one of mariadb.service, and a ".service"
-- suffix names the same unit.  On Red Hat, ssh and sshd are two names.
--! P009 11
--! note 10
--! P009 13
--! note 12
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  service.running "ssh",
  service.stopped "sshd",
  service.running "mysql",
  service.stopped "mariadb.service",
  service.running "nginx",
}
host "rh1.example.com" {
  os.rhel("9", "amd64"),
  service.running "ssh",
  service.stopped "sshd",
  service.running "mysqld",
  service.stopped "mariadb",
}
--! P009 21
--! note 20
--! total 3
