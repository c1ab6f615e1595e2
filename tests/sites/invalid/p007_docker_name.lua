-- Two docker containers of one name on a host: docker.running owns the
-- name, so the second one is P007 (docker would refuse the second run).
-- (P011 says the same of the container's name.)  One image name made
-- from two OSes is P007 too.
--! P007 17
--! note 16
--! P011 17
--! note 11
--! P007 18
--! note 16
local a = docker.container("app", docker.image("base", os.debian("bookworm", "amd64")), {})
local b = docker.container("app", "debian:bookworm", { file.has_content("/etc/motd", "b\n") })
local c = docker.container("other", docker.image("base", os.debian("trixie", "amd64")), {})
host "box" {
  os.debian("bookworm", "amd64"),
  docker.running(a),
  docker.running(b),
  docker.running(c),
}
