/*
 * lsys_net.c - the network methods of the `sys` handle, for probes:
 * sys:tcp (connect to a port of the target as the target sees it, send,
 * read the answer) and sys:http (a GET over it, the answer taken apart).
 * prop itself connects, through the host's transport
 * (prop_transport_tcp): nothing is needed on the target beyond the
 * service.  They only look, so they run in checks, tests and dry runs
 * alike: the request must be one that changes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lprop.h"
#include "lsys_methods.h"

/* The request of the options table at idx. */
static void
tcp_opts(lua_State *L, int idx, prop_tcp_req *rq, const char *method)
{
    lua_Integer port;
    lua_Number timeout;
    const char *framing;

    luaL_checktype(L, idx, LUA_TTABLE);
    memset(rq, 0, sizeof *rq);
    lua_getfield(L, idx, "port");
    if (!lua_isinteger(L, -1) || (port = lua_tointeger(L, -1)) < 1 || port > 65535)
        lsys_error(L, "sys:%s: port must be an integer in 1..65535, got %s", method,
                   luaL_tolstring(L, -1, NULL));
    rq->port = (int)port;
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "host") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) == 0 || lua_rawlen(L, -1) > 255)
            lsys_error(L, "sys:%s: host must be an address or a name", method);
        rq->host = lua_tostring(L, -1); /* anchored in the options table */
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "timeout") != LUA_TNIL) {
        if (!lua_isnumber(L, -1) || !((timeout = lua_tonumber(L, -1)) > 0 && timeout <= 600))
            lsys_error(L, "sys:%s: timeout must be seconds in (0, 600]", method);
        rq->timeout_ms = (int)(timeout * 1000);
        if (rq->timeout_ms < 1)
            rq->timeout_ms = 1;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "max") != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 ||
            lua_tointeger(L, -1) > (lua_Integer)64 << 20)
            lsys_error(L, "sys:%s: max must be a number of bytes in 1..64 MiB", method);
        rq->max = (size_t)lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
    rq->framing = PROP_TCP_CLOSE;
    if (lua_getfield(L, idx, "framing") != LUA_TNIL) {
        framing = lua_tostring(L, -1);
        if (lua_type(L, -1) != LUA_TSTRING)
            lsys_error(L, "sys:%s: framing must be \"close\", \"line\", \"len16\" or \"connect\"",
                       method);
        if (strcmp(framing, "line") == 0)
            rq->framing = PROP_TCP_LINE;
        else if (strcmp(framing, "len16") == 0)
            rq->framing = PROP_TCP_LEN16;
        else if (strcmp(framing, "connect") == 0)
            rq->framing = PROP_TCP_CONNECT;
        else if (strcmp(framing, "close") != 0)
            lsys_error(L,
                       "sys:%s: framing must be \"close\", \"line\", \"len16\" or "
                       "\"connect\", got \"%s\"",
                       method, framing);
    }
    lua_pop(L, 1);
}

/* The exchange; pushes the answer (1) or nil and the reason (2). */
static int
exchange(lua_State *L, lsys *s, const prop_tcp_req *rq)
{
    char *out = NULL;
    size_t len = 0;

    if (prop_transport_tcp(s->t, rq, &out, &len) != PROP_OK) {
        lua_pushnil(L);
        lua_pushstring(L, prop_transport_error(s->t));
        return 2;
    }
    return lprop_push_and_free(L, out, len);
}

/* sys:tcp{ port=, host=, send=, framing=, timeout=, max= } */
int
lsys_net_tcp(lua_State *L)
{
    lsys *s = lsys_check_self(L);
    prop_tcp_req rq;

    lua_settop(L, 2);
    tcp_opts(L, 2, &rq, "tcp");
    if (lua_getfield(L, 2, "send") != LUA_TNIL) {
        if (lprop_is_secret(L, -1))
            return lsys_error(L, "sys:tcp: send is a secret: a probe's request is not one");
        if (lua_type(L, -1) != LUA_TSTRING)
            return lsys_error(L, "sys:tcp: send must be a string, got a %s", luaL_typename(L, -1));
        rq.send = lua_tolstring(L, -1, &rq.send_len); /* stays on the stack */
    }
    return exchange(L, s, &rq);
}

/* A header's name as a key: lower case. */
static void
push_lower(lua_State *L, const char *p, size_t n)
{
    luaL_Buffer b;
    size_t i;

    luaL_buffinit(L, &b);
    for (i = 0; i < n; i++)
        luaL_addchar(&b, (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 32 : p[i]));
    luaL_pushresult(&b);
}

/*
 * sys:http{ port=80, name=, path="/", host=, timeout= }: a GET of path
 * with Host: name (an HTTP/1.0 request, so the server closes when it has
 * answered).  Returns the status code, the headers (names in lower case)
 * and the body; nil and the reason when there was no HTTP answer.
 */
int
lsys_net_http(lua_State *L)
{
    lsys *s = lsys_check_self(L);
    const char *name, *path, *ans, *end, *line, *eol, *colon;
    size_t alen;
    prop_tcp_req rq;
    int status, code;

    lua_settop(L, 2);
    if (lua_getfield(L, 2, "port") == LUA_TNIL) {
        lua_pushinteger(L, 80);
        lua_setfield(L, 2, "port");
    }
    lua_pop(L, 1);
    tcp_opts(L, 2, &rq, "http");
    lua_getfield(L, 2, "name");
    name = lua_isnil(L, -1) ? (rq.host ? rq.host : "localhost") : lua_tostring(L, -1);
    if (!name || lua_type(L, -1) == LUA_TNUMBER || strpbrk(name, "\r\n \t"))
        return lsys_error(L, "sys:http: name must be a host name (the Host header)");
    lua_getfield(L, 2, "path");
    path = lua_isnil(L, -1) ? "/" : lua_tostring(L, -1);
    if (!path || path[0] != '/' || strpbrk(path, "\r\n \t"))
        return lsys_error(L, "sys:http: path must start with / and hold no space");
    lua_pushfstring(L,
                    "GET %s HTTP/1.0\r\nHost: %s\r\nUser-Agent: prop-probe\r\nAccept: */*\r\n"
                    "Connection: close\r\n\r\n",
                    path, name);
    rq.send = lua_tolstring(L, -1, &rq.send_len);
    rq.framing = PROP_TCP_CLOSE;
    if ((status = exchange(L, s, &rq)) == 2)
        return 2;
    ans = lua_tolstring(L, -1, &alen);
    end = ans + alen;
    if (alen < 12 || strncmp(ans, "HTTP/", 5) != 0 || !(eol = memchr(ans, '\n', alen)) ||
        sscanf(ans, "HTTP/%*[0-9.] %3d", &code) != 1) {
        lua_pushnil(L);
        lua_pushfstring(L, "connect to %s:%d: the answer is not HTTP (%d bytes came)",
                        rq.host ? rq.host : "127.0.0.1", rq.port, (int)alen);
        return 2;
    }
    lua_pushinteger(L, code);
    lua_newtable(L);
    for (line = eol + 1; line < end; line = eol + 1) {
        size_t n;

        eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            eol = end;
        n = (size_t)(eol - line);
        if (n && line[n - 1] == '\r')
            n--;
        if (n == 0) {
            line = eol < end ? eol + 1 : end;
            break;
        }
        if ((colon = memchr(line, ':', n)) != NULL) {
            const char *v = colon + 1;

            while (v < line + n && (*v == ' ' || *v == '\t'))
                v++;
            push_lower(L, line, (size_t)(colon - line));
            lua_pushlstring(L, v, (size_t)(line + n - v));
            lua_settable(L, -3);
        }
        if (eol == end) {
            line = end;
            break;
        }
    }
    lua_pushlstring(L, line < end ? line : end, line < end ? (size_t)(end - line) : 0);
    return 3;
}
