-- W109: a container given the host's root, at the line of the parameter
-- that gives it: a Docker volume of / or of the Docker socket (or of /run,
-- which holds it), a capability that makes the container's root the
-- host's, a machine's bind of /.  The same with { host_root = true } is
-- meant, and not warned about; other paths and capabilities are not either.
--! W109 16 warning
--! W109 17 warning
--! W109 18 warning
--! W109 19 warning
--! W109 20 warning
--! W109 21 warning
--! W109 32 warning
--! W109 33 warning
--! total 8
local ci = docker.container("ci", "debian:bookworm", {
  docker.volume("/", "/host"),
  docker.volume("/var/run/docker.sock", "/var/run/docker.sock"),
  docker.volume("/run/docker.sock", "/run/docker.sock"),
  docker.volume("/run/", "/hostrun"),
  docker.cap_add "SYS_ADMIN",
  docker.cap_add "DAC_READ_SEARCH",
  -- meant
  docker.volume("/", "/all", { host_root = true }),
  docker.volume("/var/run/docker.sock", "/docker.sock", { host_root = true }),
  docker.cap_add("SYS_MODULE", { host_root = true }),
  -- harmless
  docker.volume("/srv/ci/work", "/work"),
  docker.volume("/run/user/1000", "/home/ci/run"),
  docker.cap_add "NET_ADMIN",
})
local m = systemd.container("m", os.debian("bookworm", "amd64"), {
  systemd.bind("/", "/host"),
  systemd.bind("/var/run/docker.sock"),
  systemd.bind("/", "/ro", { readonly = true, host_root = true }),
  systemd.bind("/srv/www", "/var/www"),
})

host "box" {
  os.debian("bookworm", "amd64"),
  docker.running(ci),
  systemd.nspawned(m),
}
