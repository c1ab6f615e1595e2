-- P008, P009, P010 with hand-written properties: claims.packages,
-- services, users and groups agree with the recipes that say the same and
-- conflict with the opposite, in both orders.
local function nop(sys) end

host "claims.example.com" {
  os.debian("bookworm", "amd64"),
  property { desc = "needs gcc", claims = { packages = { "gcc" } }, apply = nop },
  apt.removed "gcc",
  apt.removed "make",
  property { desc = "needs make", claims = { packages = "make" }, apply = nop },
  property { desc = "runs nginx", claims = { services = { "nginx" } }, apply = nop },
  service.stopped "nginx",
  service.stopped "cron",
  property { desc = "runs cron", claims = { services = { "cron" } }, apply = nop },
  property { desc = "makes deploy", claims = { users = { "deploy" } }, apply = nop },
  user.absent "deploy",
  user.absent "old",
  property { desc = "makes old", claims = { users = { "old" } }, apply = nop },
}

-- Near misses: both need the same package, service, account and group;
-- a claimed account beside the recipe that makes it with a uid.
host "agree.example.com" {
  os.debian("bookworm", "amd64"),
  property { desc = "builds", claims = { packages = { "gcc" }, services = { "ssh" },
                                         users = { "build" }, groups = { "build" } },
             apply = nop },
  apt.installed "gcc",
  apt.installed_min "gcc",
  service.running "ssh",
  user.account("build", { uid = 1500 }),
  group.exists("build", { gid = 1500 }),
  property { desc = "also builds", claims = { packages = "gcc", users = "build" }, apply = nop },
}

--! P008 9
--! P008 11
--! P009 13
--! P009 15
--! P010 17
--! P010 19
