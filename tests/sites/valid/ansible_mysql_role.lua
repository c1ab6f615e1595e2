-- A MySQL role as the popular Ansible roles for MariaDB write it, made
-- the prop way: the role's defaults are a Lua table, a host's variables
-- are merged over them, and every task of the role is a typed property
-- (no cmd.run): the server installed and running, its settings, the
-- client configuration from a Jinja template, the test database and the
-- anonymous accounts gone, then the databases, the accounts (passwords
-- from the secret store) and their exact privileges, and the slow-query
-- log.  Each host below chooses what it needs, as a playbook's host_vars
-- would.

local defaults = {
  mysql_port = 3306,
  mysql_bind_address = "127.0.0.1",
  mysql_max_connections = 151,
  mysql_innodb_buffer_pool_size = "256M",
  mysql_slow_query_log_enabled = false,
  mysql_slow_query_time = 2,
  mysql_slow_query_log_file = "/var/log/mysql/mysql-slow.log",
  mysql_server_id = nil,           -- replication: set on primaries and replicas
  mysql_databases = {},
  mysql_users = {},
}

local function with_defaults(vars)
  local v = {}
  for k, x in pairs(defaults) do v[k] = x end
  for k, x in pairs(vars or {}) do v[k] = x end
  return v
end

-- The role's tasks.
local function mysql_role(vars)
  local v = with_defaults(vars)
  local tasks = {
    mysql.installed(),
    mysql.setting("bind_address", v.mysql_bind_address),
    mysql.setting("port", v.mysql_port),
    mysql.setting("max_connections", v.mysql_max_connections),
    mysql.setting("innodb_buffer_pool_size", v.mysql_innodb_buffer_pool_size),
    -- root's client defaults, rendered from the role's template.
    file.has_content("/root/.my.cnf", template("templates/root-my.cnf.j2", v), { mode = "0600" }),
    -- What a fresh server has and a production one must not.
    revert(mysql.database("test")),
  }
  if v.mysql_slow_query_log_enabled then
    tasks[#tasks + 1] = file.touched(v.mysql_slow_query_log_file,
                                     { owner = "mysql", group = "adm", mode = "0640" })
    tasks[#tasks + 1] = mysql.setting("slow_query_log", true)
    tasks[#tasks + 1] = mysql.setting("slow_query_log_file", v.mysql_slow_query_log_file)
    tasks[#tasks + 1] = mysql.setting("long_query_time", v.mysql_slow_query_time)
  end
  if v.mysql_server_id then
    tasks[#tasks + 1] = mysql.setting("server_id", v.mysql_server_id)
    tasks[#tasks + 1] = mysql.setting("log_bin", "mysql-bin")
  end
  for _, db in ipairs(v.mysql_databases) do
    tasks[#tasks + 1] = mysql.database(db.name, { encoding = db.encoding or "utf8mb4",
                                                  collation = db.collation or "utf8mb4_general_ci" })
  end
  for _, u in ipairs(v.mysql_users) do
    local host = u.host or "localhost"
    tasks[#tasks + 1] = mysql.user(u.name, { password = secret(u.password_secret), host = host })
    for on, privileges in pairs(u.priv) do
      tasks[#tasks + 1] = mysql.grant(u.name, { on = on, host = host, privileges = privileges })
    end
  end
  return tasks
end

host "db1.example.com" {
  os.debian("bookworm", "amd64"),
  mysql_role {
    mysql_bind_address = "0.0.0.0",
    mysql_max_connections = 300,
    mysql_slow_query_log_enabled = true,
    mysql_server_id = 1,
    mysql_databases = { { name = "shop" }, { name = "wiki", collation = "utf8mb4_unicode_ci" } },
    mysql_users = {
      { name = "shop", host = "10.0.0.%", password_secret = "db1_shop",
        priv = { ["shop.*"] = { "SELECT", "INSERT", "UPDATE", "DELETE" } } },
      { name = "wiki", password_secret = "db1_wiki",
        priv = { ["wiki.*"] = { "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "ALTER", "INDEX" } } },
      { name = "backup", password_secret = "db1_backup",
        priv = { ["*.*"] = { "SELECT", "LOCK TABLES", "SHOW VIEW", "RELOAD" } } },
    },
  },
}

host "db2.example.com" {
  os.debian("bookworm", "amd64"),
  mysql_role { mysql_innodb_buffer_pool_size = "1G" },
}
