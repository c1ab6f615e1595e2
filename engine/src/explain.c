/*
 * explain.c - what each diagnostic code means, for `prop explain CODE`.
 *
 * Every explanation says what the rule is, why it matters, shows a small
 * site that breaks it, the diagnostic prop gives, and the fix.  The texts
 * are static; nothing here allocates.
 */
#include <string.h>

#include "internal.h"

typedef struct explanation {
    const char *code;
    const char *summary;
    const char *text;
} explanation;

static const explanation table[] = {
    {"P001", "revert(p) where p is not revertable",
     "P001 (error): revert(p) where p is not revertable\n"
     "\n"
     "revert(p) runs the undo action of p, so p must have one.  A property is\n"
     "revertable when it pairs a setup with an undo (apt.installed with\n"
     "apt.removed, revertable(a, b), ...), and a composite is revertable only\n"
     "when every part that runs is.  Reverting something that cannot be undone\n"
     "would silently do nothing, so prop refuses the site and names the part\n"
     "that has no undo action.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" {\n"
     "    os.debian(\"bookworm\", \"amd64\"),\n"
     "    revert(file.has_content(\"/etc/motd\", \"hello\")),\n"
     "  }\n"
     "\n"
     "  site.lua:3: error[P001]: cannot revert file /etc/motd has content: it is not revertable\n"
     "      3 |     revert(file.has_content(\"/etc/motd\", \"hello\")),\n"
     "  site.lua:3: note: file.has_content has no revert action: the old content is not known\n"
     "\n"
     "Fix: say what the undo is, or use the property that is the undo:\n"
     "\n"
     "    file.absent \"/etc/motd\",\n"
     "  or\n"
     "    revert(revertable(file.has_content(\"/etc/motd\", \"hello\"),\n"
     "                      file.absent \"/etc/motd\")),\n"},
    {"P002", "a property's targets exclude the OS of its host",
     "P002 (error): a property's targets exclude the OS of the host it is on\n"
     "\n"
     "Every property has targets, the operating-system families it can run on\n"
     "(apt.* runs on DebianLike, pkg.* on FreeBSD, most file properties on\n"
     "UnixLike).  Composing properties intersects their targets.  A property\n"
     "whose targets do not include the OS its host declares could only fail\n"
     "when run, so it is rejected before anything runs.  The diagnostic names\n"
     "the innermost part that excludes the OS and where the OS was declared.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"bsd1\" {\n"
     "    os.freebsd(\"14.1\", \"amd64\"),\n"
     "    apt.installed { \"nginx\" },\n"
     "  }\n"
     "\n"
     "  site.lua:3: error[P002]: \"apt installed nginx\" runs only on DebianLike, but host "
     "\"bsd1\" is freebsd\n"
     "      3 |     apt.installed { \"nginx\" },\n"
     "  site.lua:2: note: host \"bsd1\" declared freebsd here\n"
     "\n"
     "Fix: use the property for that OS, or pick_os to choose at run time:\n"
     "\n"
     "    pkg.installed { \"nginx\" },\n"
     "  or\n"
     "    pick_os(apt.installed { \"nginx\" }, pkg.installed { \"nginx\" }),\n"},
    {"P003", "a host uses an OS-specific property but declares no OS",
     "P003 (error): a host uses an OS-specific property but declares no OS\n"
     "\n"
     "A host's operating system is declared with os.debian, os.buntish or\n"
     "os.freebsd.  Without it prop cannot tell whether a property that runs\n"
     "only on some families (apt.*, pkg.*) fits the host, nor pick the right\n"
     "alternative of a pick_os.  Properties that run on every UnixLike system\n"
     "need no OS; the first OS-specific one does.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" {\n"
     "    apt.installed { \"nginx\" },\n"
     "  }\n"
     "\n"
     "  site.lua:2: error[P003]: \"apt installed nginx\" runs only on DebianLike, but host "
     "\"web1\" declares no operating system\n"
     "      2 |     apt.installed { \"nginx\" },\n"
     "  site.lua:1: note: add os.debian(...), os.buntish(...) or os.freebsd(...) to host \"web1\"\n"
     "\n"
     "Fix:\n"
     "\n"
     "  host \"web1\" {\n"
     "    os.debian(\"bookworm\", \"amd64\"),\n"
     "    apt.installed { \"nginx\" },\n"
     "  }\n"},
    {"P004", "a host declares its OS more than once",
     "P004 (error): a host declares its operating system more than once\n"
     "\n"
     "A host runs one operating system.  Two os.* declarations on one host\n"
     "(directly or inside properties it uses) leave it unclear which targets\n"
     "apply and which pick_os alternative runs.  The same declaration given\n"
     "twice is only warning W101; two different ones are this error.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  local base = props { os.debian(\"bookworm\", \"amd64\"), apt.update() }\n"
     "  host \"web1\" {\n"
     "    base,\n"
     "    os.debian(\"trixie\", \"amd64\"),\n"
     "  }\n"
     "\n"
     "  site.lua:4: error[P004]: host \"web1\" declares its operating system twice, as os.debian "
     "\"bookworm\" amd64 and as os.debian \"trixie\" amd64: a host runs one operating system\n"
     "      4 |     os.debian(\"trixie\", \"amd64\"),\n"
     "  site.lua:1: note: os.debian \"bookworm\" amd64 is declared here\n"
     "\n"
     "Fix: keep one declaration; take os.* out of shared property lists and\n"
     "declare it in each host.\n"},
    {"P005", "a combinator joins properties whose targets do not intersect",
     "P005 (error): a combinator joins properties whose targets do not intersect\n"
     "\n"
     "requires, before, on_change, fallback, revertable and props run all of\n"
     "their parts on one host, so the result runs only where every part can:\n"
     "its targets are the intersection of theirs.  When that intersection is\n"
     "empty no operating system can run the combination, whatever host it is\n"
     "put on.  (pick_os is the combinator for \"one of these, depending on the\n"
     "OS\": its targets are the union.)\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  local web = apt.installed { \"nginx\" }:requires(pkg.installed { \"curl\" })\n"
     "\n"
     "  site.lua:1: error[P005]: cannot combine \"apt installed nginx\" (DebianLike) with \"pkg "
     "installed curl\" (FreeBSD) in requires: no operating system can run both\n"
     "      1 | local web = apt.installed { \"nginx\" }:requires(pkg.installed { \"curl\" })\n"
     "  site.lua:1: note: \"apt installed nginx\" runs only on DebianLike\n"
     "  site.lua:1: note: \"pkg installed curl\" runs only on FreeBSD\n"
     "\n"
     "Fix: use parts for the same OS, or choose by OS with pick_os:\n"
     "\n"
     "  local web = apt.installed { \"nginx\" }:requires(apt.installed { \"curl\" })\n"},
    {"P006", "two properties on one host use the same port",
     "P006 (error): two properties on one host use the same port\n"
     "\n"
     "A property's type lists the ports its service listens on (apache.installed\n"
     "uses 80 and 443, tor.bridge 443).  Two different services on one host\n"
     "cannot both listen on one port: whichever starts second fails, often\n"
     "long after the change was made.  prop compares the ports of every\n"
     "property that takes effect on a host (through requires, props, pick_os\n"
     "for the host's OS, ...).  The same property twice is not a clash.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" {\n"
     "    os.debian(\"bookworm\", \"amd64\"),\n"
     "    apache.installed(),\n"
     "    tor.bridge(),\n"
     "  }\n"
     "\n"
     "  site.lua:4: error[P006]: port 443 is used by both \"tor bridge\" and \"apache installed\" "
     "on host \"web1\": two services cannot listen on one port\n"
     "      4 |     tor.bridge(),\n"
     "  site.lua:3: note: \"apache installed\" uses port 443 here\n"
     "\n"
     "Fix: move one of them to another host (or a container with its own\n"
     "address), or configure one to listen elsewhere.\n"},
    {"P007", "one file path is given two different contents or states",
     "P007 (error): one file path is given two different contents or states\n"
     "\n"
     "File properties claim what a path must be: given content, generated,\n"
     "a directory, a symlink, absent, a mode, an owner, containing or lacking\n"
     "a line.  When two properties of one host want incompatible things the\n"
     "second undoes the first on every run and the host never converges.\n"
     "prop compares claims across recipes, not only identical calls: content\n"
     "against a line edit of the same file, a directory against absent, a\n"
     "path below an absent directory, two different modes or owners.\n"
     "Claims that agree (the same content twice) are fine.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" {\n"
     "    os.debian(\"bookworm\", \"amd64\"),\n"
     "    file.absent \"/etc/foo\",\n"
     "    file.directory \"/etc/foo\",\n"
     "  }\n"
     "\n"
     "  site.lua:4: error[P007]: \"/etc/foo\" must be a directory here but absent at site.lua:3\n"
     "      4 |     file.directory \"/etc/foo\",\n"
     "  site.lua:3: note: \"file absent /etc/foo\" makes it absent here\n"
     "\n"
     "Another:\n"
     "\n"
     "    file.has_content(\"/etc/foo.conf\", { \"a=1\" }),\n"
     "    file.contains_lines(\"/etc/foo.conf\", { \"secure=1\" }),\n"
     "\n"
     "  gives: \"/etc/foo.conf\" must contain the line \"secure=1\" here but its\n"
     "  fixed content from \"file has content /etc/foo.conf\" at site.lua:3 lacks it\n"
     "\n"
     "Fix: keep one owner per path: put the line into the content, drop the\n"
     "file.absent, or make the two properties agree.\n"},
    {"P008", "one package is both installed and removed",
     "P008 (error): one package is both installed and removed\n"
     "\n"
     "apt.installed and apt.removed (pkg.installed and pkg.removed on FreeBSD)\n"
     "claim a package's state.  Asking for both on one host means each run\n"
     "installs and then removes it (or the reverse): the host never converges\n"
     "and every run reports a change.  revert(apt.installed {...}) is a\n"
     "removal too.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" {\n"
     "    os.debian(\"bookworm\", \"amd64\"),\n"
     "    apt.installed { \"telnet\" },\n"
     "    apt.removed { \"telnet\" },\n"
     "  }\n"
     "\n"
     "  site.lua:4: error[P008]: package \"telnet\" must be removed here but installed at "
     "site.lua:3\n"
     "      4 |     apt.removed { \"telnet\" },\n"
     "  site.lua:3: note: \"apt installed telnet\" installs it here\n"
     "\n"
     "Fix: keep the one you mean.\n"},
    {"P009", "one service is both running and stopped",
     "P009 (error): one service is both running and stopped\n"
     "\n"
     "service.running and service.stopped claim a service's state, and\n"
     "service.restarted starts it.  Asking one host for a running (or\n"
     "restarted) and a stopped service makes every run flip it, and whatever\n"
     "depends on the service is up or down depending on the order.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" {\n"
     "    os.debian(\"bookworm\", \"amd64\"),\n"
     "    service.running \"nginx\",\n"
     "    service.stopped \"nginx\",\n"
     "  }\n"
     "\n"
     "  site.lua:4: error[P009]: service \"nginx\" must be stopped here but running at site.lua:3\n"
     "      4 |     service.stopped \"nginx\",\n"
     "  site.lua:3: note: \"service running nginx\" wants it running here\n"
     "\n"
     "Fix: keep the one you mean; to stop a service that a shared list starts,\n"
     "remove it from that list for this host.\n"},
    {"P010", "an account or group declared twice with different ids, or two names with one id",
     "P010 (error): an account or group declared twice with different ids, or\n"
     "two names with one id\n"
     "\n"
     "user.account and group.exists may fix a uid or gid.  One name with two\n"
     "ids, two names sharing one id (files of one would belong to the other),\n"
     "or an account both present and absent cannot all hold on one host.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" {\n"
     "    os.debian(\"bookworm\", \"amd64\"),\n"
     "    user.account(\"alice\", { uid = 1000 }),\n"
     "    user.account(\"bob\", { uid = 1000 }),\n"
     "  }\n"
     "\n"
     "  site.lua:4: error[P010]: uid 1000 is given to user \"bob\" here but to user \"alice\" at "
     "site.lua:3: two accounts would share one identity\n"
     "      4 |     user.account(\"bob\", { uid = 1000 }),\n"
     "  site.lua:3: note: \"user alice exists (uid 1000)\" declares it here\n"
     "\n"
     "Fix: give each account its own id, or leave the id out and let the\n"
     "system choose.\n"},
    {"P011", "two hosts with one name",
     "P011 (error): two hosts with one name\n"
     "\n"
     "A host's name is how prop reaches it and how `prop run SITE HOST` picks\n"
     "it; two hosts of one name would both be configured on the same machine,\n"
     "with their properties fighting.  Host names are unique in a site.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" { os.debian(\"bookworm\", \"amd64\"), apt.installed { \"nginx\" } }\n"
     "  host \"web1\" { os.debian(\"bookworm\", \"amd64\"), apt.installed { \"tor\" } }\n"
     "\n"
     "  site.lua:2: error[P011]: host \"web1\" is declared twice: host names must be unique in a "
     "site\n"
     "      2 |   host \"web1\" { os.debian(\"bookworm\", \"amd64\"), apt.installed { \"tor\" } }\n"
     "  site.lua:1: note: host \"web1\" was first declared here\n"
     "\n"
     "Fix: rename one, or merge the two lists into one host.\n"},
    {"P012", "a bad argument to a property constructor",
     "P012 (error): a bad argument to a property constructor\n"
     "\n"
     "Recipes check their arguments when the site is evaluated: the type of\n"
     "each argument, the keys of option tables (an unknown key gets a \"did\n"
     "you mean\"), absolute paths where a path is required, ports in\n"
     "1..65535, octal modes such as \"0644\".  A mistake would otherwise show\n"
     "up only when the property runs on a host, or never (a misspelt option\n"
     "silently ignored).  Evaluation goes on after the mistake, so every bad\n"
     "argument of the site is reported in one pass.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" {\n"
     "    os.debian(\"bookworm\", \"amd64\"),\n"
     "    file.directory(\"srv/www\"),\n"
     "    file.has_content(\"/etc/motd\", \"hi\\n\", { mdoe = \"0644\" }),\n"
     "  }\n"
     "\n"
     "  site.lua:3: error[P012]: file.directory: path must be an absolute path (starting with /), "
     "got relative path \"srv/www\"\n"
     "      3 |     file.directory(\"srv/www\"),\n"
     "  site.lua:4: error[P012]: unknown key \"mdoe\" for file.has_content (did you mean "
     "\"mode\"?)\n"
     "      4 |     file.has_content(\"/etc/motd\", \"hi\\n\", { mdoe = \"0644\" }),\n"
     "\n"
     "Fix: correct the arguments:\n"
     "\n"
     "    file.directory(\"/srv/www\"),\n"
     "    file.has_content(\"/etc/motd\", \"hi\\n\", { mode = \"0644\" }),\n"},
    {"P013", "conflicting info: one address claimed by two hosts, two hostnames on one host",
     "P013 (error): conflicting info\n"
     "\n"
     "Info properties state facts that other parts of the site rely on: DNS\n"
     "zones are built from every host's ipv4/ipv6, and hostname.set names the\n"
     "machine.  One address declared by two hosts would put both names on one\n"
     "machine in DNS; two different hostnames on one host make every run\n"
     "rename it.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" { os.debian(\"bookworm\", \"amd64\"), ipv4 \"192.0.2.10\" }\n"
     "  host \"web2\" { os.debian(\"bookworm\", \"amd64\"), ipv4 \"192.0.2.10\" }\n"
     "\n"
     "  site.lua:2: error[P013]: address 192.0.2.10 is declared by host \"web2\" here but also by "
     "host \"web1\" at site.lua:1: one address cannot belong to two machines\n"
     "      2 |   host \"web2\" { os.debian(\"bookworm\", \"amd64\"), ipv4 \"192.0.2.10\" }\n"
     "  site.lua:1: note: host \"web1\" declares it here\n"
     "\n"
     "Fix: give each host its own address (and each host one hostname.set).\n"},
    {"P014", "a container's published port clashes with its parent's ports",
     "P014 (error): a container's published port clashes with its parent's ports\n"
     "\n"
     "A container may publish a port on its parent host (docker's -p, an\n"
     "nspawn port forward).  The parent then listens on that port on the\n"
     "container's behalf, so the port must not also be used by one of the\n"
     "parent's own properties, nor published by another container of the\n"
     "same parent: one of the two would fail to bind.  (This rule arrives\n"
     "with containers.)\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  local web = docker.container(\"web\", \"nginx:stable\", { ports = { \"80:80\" } })\n"
     "  host \"box\" {\n"
     "    os.debian(\"bookworm\", \"amd64\"),\n"
     "    apache.installed(),\n"
     "    docker.running(web),\n"
     "  }\n"
     "\n"
     "  site.lua:5: error[P014]: container \"web\" publishes port 80 on host \"box\", which "
     "\"apache installed\" already uses\n"
     "      5 |     docker.running(web),\n"
     "  site.lua:4: note: \"apache installed\" uses port 80 here\n"
     "\n"
     "Fix: publish the container on another port (\"8080:80\"), or move one of\n"
     "them to another host.\n"},
    {"W101", "the same property twice on a host",
     "W101 (warning): the same property twice on a host\n"
     "\n"
     "A host lists the same property twice: the same value, or two calls that\n"
     "describe the same thing and claim the same resources.  The second one\n"
     "does nothing more than the first, so it is harmless, but it is often a\n"
     "copy-and-paste slip (one of them was meant to be something else).\n"
     "Properties that are shared by two others (each requiring\n"
     "file.directory \"/srv\") are not warned about.  --werror makes this an\n"
     "error.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" {\n"
     "    os.debian(\"bookworm\", \"amd64\"),\n"
     "    apt.installed { \"nginx\" },\n"
     "    apt.installed { \"nginx\" },\n"
     "  }\n"
     "\n"
     "  site.lua:4: warning[W101]: \"apt installed nginx\" is already on host \"web1\": the second "
     "one has no effect\n"
     "      4 |     apt.installed { \"nginx\" },\n"
     "  site.lua:3: note: \"apt installed nginx\" is first declared here\n"
     "\n"
     "Fix: delete one, or correct the one that was meant to differ.\n"},
    {"W102", "an on_change whose trigger can never change",
     "W102 (warning): an on_change whose trigger can never change\n"
     "\n"
     "a:on_change(b) runs b only when a made a change.  When a only carries\n"
     "information (os.*, ipv4, connect.*, ...) it never changes anything, so\n"
     "b never runs: the hook is dead code.  --werror makes this an error.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  local p = ipv4(\"192.0.2.10\"):on_change(service.restarted \"nginx\")\n"
     "\n"
     "  site.lua:1: warning[W102]: \"service restarted nginx\" can never run: it waits for a "
     "change of \"ipv4 192.0.2.10\", which only carries information and never changes\n"
     "      1 | local p = ipv4(\"192.0.2.10\"):on_change(service.restarted \"nginx\")\n"
     "  site.lua:1: note: \"ipv4 192.0.2.10\" is declared here\n"
     "\n"
     "Fix: hang the hook on the property that changes things (for example the\n"
     "file.has_content that writes the address into nginx's configuration).\n"},
    {"W103", "a host with no properties",
     "W103 (warning): a host with no properties\n"
     "\n"
     "A host declared with an empty list has nothing to do: prop run on it\n"
     "does nothing, which is rarely what was meant (a list built by code came\n"
     "out empty, or the properties went to another host).  --werror makes\n"
     "this an error.\n"
     "\n"
     "Wrong:\n"
     "\n"
     "  host \"web1\" {}\n"
     "\n"
     "  site.lua:1: warning[W103]: host \"web1\" has no properties: prop has nothing to do on it\n"
     "      1 | host \"web1\" {}\n"
     "\n"
     "Fix: give it at least its OS and what it should run, or delete it.\n"},
};

#define NCODES (sizeof table / sizeof table[0])

static const explanation *
find(const char *code)
{
    size_t i;

    if (code == NULL)
        return NULL;
    for (i = 0; i < NCODES; i++) {
        if (strcmp(table[i].code, code) == 0)
            return &table[i];
    }
    return NULL;
}

const char *
prop_explain(const char *code)
{
    const explanation *e = find(code);

    return e ? e->text : NULL;
}

const char *
prop_explain_summary(const char *code)
{
    const explanation *e = find(code);

    return e ? e->summary : NULL;
}

/* In the order of the table above (checked by the unit tests). */
static const char *const codes[] = {"P001", "P002", "P003", "P004", "P005", "P006",
                                    "P007", "P008", "P009", "P010", "P011", "P012",
                                    "P013", "P014", "W101", "W102", "W103", NULL};

const char *const *
prop_explain_codes(void)
{
    return codes;
}
