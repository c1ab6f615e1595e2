-- A directory tree standing in for a machine, and this machine itself:
-- only UnixLike properties, so no OS needs to be declared.

host "tree" {
  connect.dir "/tmp/prop-test-tree",
  file.directory("/etc/app"),
  file.has_content("/etc/app/app.conf", { "listen = 127.0.0.1:8000", "workers = 4" }),
  file.contains_lines("/etc/app/extra.conf", "debug = false"),
  file.symlink("/etc/app/current", "app.conf"),
  file.mode("/etc/app/app.conf", "0640"),
}

host "localhost" {
  file.has_content("/tmp/prop-test-local/hello", "hello\n"),
}

host "laptop" {
  connect.localhost(),
  os.debian("trixie", "amd64"),
  apt.installed "git",
}
