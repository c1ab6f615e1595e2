-- P014: a docker container's published port is its host's port.  It
-- clashes with a port the host's own properties use (apache: 80), and
-- with one another container of the host publishes (8080).
--! P014 14
--! note 13
--! P014 15
--! note 14
local base = docker.image("base", os.debian("bookworm", "amd64"))
local web = docker.container("web", base, { docker.publish(80, 80), docker.publish(8080, 8080) })
local api = docker.container("api", base, { docker.publish(8080, 80) })
host "box" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  docker.running(web),
  docker.running(api),
}
