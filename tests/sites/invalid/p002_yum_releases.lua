-- P002: dnf on releases whose package manager is yum (RHEL and its
-- rebuilds before 8, Fedora before 22), directly or through packages.*.
--! P002 10
--! P002 11
--! P002 15
--! P002 19
--! total 4
host "centos6.example.com" {
  os.centos("6", "amd64"),
  dnf.installed "nginx",
  packages.installed { "git" },
}
host "rhel7.example.com" {
  os.rhel("7.9", "amd64"),
  dnf.upgraded(),
}
host "fedora21.example.com" {
  os.fedora("21", "amd64"),
  revert(dnf.installed "httpd"),
}
