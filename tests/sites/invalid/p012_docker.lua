-- P012 for docker's arguments, each at the line of the call that got it.
--! P012 11
--! P012 12
--! P012 13
--! P012 14
--! P012 15
--! P012 16
--! P012 17
--! P012 18
--! P012 19
local bad_image = docker.image("Base", os.debian("bookworm", "amd64"))
local bad_os = docker.image("base", "bookworm")
local bad_opt = docker.image("base", os.debian("bookworm", "amd64"), { mirorr = "http://x" })
local bad_name = docker.container("My App", "debian:bookworm", {})
local bad_ref = docker.container("app", 42, {})
local bad_port = docker.publish(70000, 80)
local bad_volume = docker.volume("srv/data", "/data:ro")
local bad_env = docker.env("A B", "1")
local not_container = docker.running("app")
host "box" {
  os.debian("bookworm", "amd64"),
  docker.running(docker.container("a", bad_image, { bad_port, bad_volume, bad_env })),
  docker.running(bad_name),
  not_container,
}
