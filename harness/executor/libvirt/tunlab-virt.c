// SPDX-License-Identifier: GPL-2.0
/*
 * tunlab-virt: start one L2 guest through libvirt's QEMU driver, embedded
 * in this process (qemu:///embed?root=DIR), and keep it until told to stop.
 *
 * The guest is the executor's L2 (qboot, the lab kernel, the agent on a
 * virtio-serial port), described as a libvirt client describes one: an
 * <interface type='ethernet'> whose tap libvirt creates (or, managed='no',
 * opens when it exists already) and hands QEMU as a descriptor. Every TUN
 * ioctl is libvirt's own, made from this process, so tunguard's decision
 * records name it.
 *
 * One line on stdout says how the start went:
 *   started qemu=PID tap=NAME       QEMU's pid and the guest's tap
 *   error errno=N code=C MESSAGE    libvirt's error: its code, and the
 *                                   system errno it reported (0: none)
 * after "started", the guest runs until it powers off or this process gets
 * SIGTERM or SIGINT (the domain is destroyed). Exit status: 0 after a
 * start, 1 after an error, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#define VIRT_CONF "/etc/tunlab/libvirt-qemu.conf"

struct virt_opts {
	const char *root, *cache, *name, *kernel, *initrd, *bios, *append;
	const char *console, *ctl, *tap, *mac, *cpu, *xml_out;
	bool premade, vhost;
	int mem_mb;
};

/* written by the event loop when the domain stops, read by main() */
static int stopped_pipe[2] = { -1, -1 };

static void *event_loop(void *arg)
{
	(void)arg;
	for (;;)
		virEventRunDefaultImpl();
	return NULL;
}

static int on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail,
			void *opaque)
{
	(void)conn;
	(void)dom;
	(void)detail;
	(void)opaque;
	if (event == VIR_DOMAIN_EVENT_STOPPED && write(stopped_pipe[1], "", 1) < 0)
		return 0;
	return 0;
}

/* libvirt's last error as the protocol's error line, and on stderr. */
static int report_error(const char *what)
{
	virErrorPtr e = virGetLastError();
	int err = e && e->code == VIR_ERR_SYSTEM_ERROR && e->int1 > 0 ? e->int1 : 0;
	const char *msg = e && e->message ? e->message : "libvirt gave no message";

	printf("error errno=%d code=%d %s\n", err, e ? e->code : 0, msg);
	fflush(stdout);
	fprintf(stderr, "tunlab-virt: %s: %s\n", what, msg);
	return 1;
}

static xmlNodePtr add(xmlNodePtr parent, const char *name, const char *text)
{
	return xmlNewTextChild(parent, NULL, BAD_CAST name, BAD_CAST text);
}

static void prop(xmlNodePtr node, const char *name, const char *value)
{
	xmlNewProp(node, BAD_CAST name, BAD_CAST value);
}

/*
 * QEMU's -cpu as the executor gives it to a QEMU it starts itself
 * ("host,-xsave,-tsc-deadline"): the model, then features to drop (-) or require (+).
 */
static void add_cpu(xmlNodePtr dom, const char *spec)
{
	char *copy = strdup(spec), *save = NULL, *tok;
	xmlNodePtr cpu = add(dom, "cpu", NULL);

	tok = strtok_r(copy, ",", &save);
	if (tok && !strcmp(tok, "host")) {
		prop(cpu, "mode", "host-passthrough");
	} else {
		prop(cpu, "mode", "custom");
		add(cpu, "model", tok ? tok : "qemu64");
	}
	prop(cpu, "check", "none");
	while ((tok = strtok_r(NULL, ",", &save))) {
		xmlNodePtr f = add(cpu, "feature", NULL);

		prop(f, "policy", tok[0] == '-' ? "disable" : "require");
		prop(f, "name", tok[0] == '-' || tok[0] == '+' ? tok + 1 : tok);
	}
	free(copy);
}

static void add_interface(xmlNodePtr devs, const struct virt_opts *o)
{
	xmlNodePtr nic = add(devs, "interface", NULL), n;

	prop(nic, "type", "ethernet");
	if (o->tap) {
		n = add(nic, "target", NULL);
		prop(n, "dev", o->tap);
		/* the tap exists: libvirt opens it and leaves it be */
		if (o->premade)
			prop(n, "managed", "no");
	}
	prop(add(nic, "mac", NULL), "address", o->mac);
	prop(add(nic, "model", NULL), "type", "virtio");
	prop(add(nic, "driver", NULL), "name", o->vhost ? "vhost" : "qemu");
	/* the firmware loads the kernel through fw_cfg: no network boot ROM */
	prop(add(nic, "rom", NULL), "enabled", "no");
}

static void add_devices(xmlNodePtr dom, const struct virt_opts *o)
{
	xmlNodePtr devs = add(dom, "devices", NULL), n, s;

	n = add(devs, "serial", NULL);
	prop(n, "type", "file");
	prop(add(n, "source", NULL), "path", o->console);
	/* bind: QEMU listens, the executor connects as to a QEMU it started */
	n = add(devs, "channel", NULL);
	prop(n, "type", "unix");
	s = add(n, "source", NULL);
	prop(s, "mode", "bind");
	prop(s, "path", o->ctl);
	s = add(n, "target", NULL);
	prop(s, "type", "virtio");
	prop(s, "name", "tunlab.ctl");
	/* two ports, as the executor gives the QEMU it starts itself */
	n = add(devs, "controller", NULL);
	prop(n, "type", "virtio-serial");
	prop(n, "ports", "2");
	add_interface(devs, o);
	n = add(devs, "controller", NULL);
	prop(n, "type", "usb");
	prop(n, "model", "none");
	prop(add(devs, "memballoon", NULL), "model", "none");
}

/* The domain: the guest the executor starts with QEMU directly. */
static char *domain_xml(const struct virt_opts *o)
{
	xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
	xmlNodePtr dom = xmlNewNode(NULL, BAD_CAST "domain"), os, n;
	xmlChar *text;
	char mem[16];
	int len;

	xmlDocSetRootElement(doc, dom);
	prop(dom, "type", "kvm");
	add(dom, "name", o->name);
	snprintf(mem, sizeof(mem), "%d", o->mem_mb);
	prop(add(dom, "memory", mem), "unit", "MiB");
	os = add(dom, "os", NULL);
	n = add(os, "type", "hvm");
	prop(n, "arch", "x86_64");
	prop(n, "machine", "pc");
	n = add(os, "loader", o->bios);
	prop(n, "type", "rom");
	prop(n, "readonly", "yes");
	add(os, "kernel", o->kernel);
	add(os, "initrd", o->initrd);
	add(os, "cmdline", o->append);
	/* ACPI, as QEMU has it by default and as the executor starts its own QEMU */
	add(add(dom, "features", NULL), "acpi", NULL);
	add_cpu(dom, o->cpu);
	add(dom, "on_poweroff", "destroy");
	add(dom, "on_reboot", "destroy");
	add(dom, "on_crash", "destroy");
	add_devices(dom, o);
	xmlDocDumpFormatMemory(doc, &text, &len, 1);
	xmlFreeDoc(doc);
	return (char *)text;
}

static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret = -1;
	char buf[4096];
	ssize_t n = 0;

	if (in >= 0)
		out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (out >= 0 && n == 0)
		ret = 0;
	if (ret < 0)
		fprintf(stderr, "tunlab-virt: copy %s to %s: %s\n", from, to, strerror(errno));
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0)
		ret = -1;
	return ret;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/*
 * The embed root, made afresh (libvirt would reconnect to the guest an
 * earlier launcher left there, and clean up after it): the driver's
 * configuration where it reads it, and its cache of QEMU's capabilities
 * shared between roots (probing QEMU costs libvirt 10 to 25 s in L1; the
 * cache stays valid for the boot).
 */
static int prepare_root(const struct virt_opts *o)
{
	char path[4096];

	if (nftw(o->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT) {
		fprintf(stderr, "tunlab-virt: remove %s: %s\n", o->root, strerror(errno));
		return -1;
	}
	if ((mkdir(o->root, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(o->cache, 0755) < 0 && errno != EEXIST)) {
		fprintf(stderr, "tunlab-virt: mkdir %s or %s: %s\n", o->root, o->cache,
			strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cache", o->root);
	if (symlink(o->cache, path) < 0 && errno != EEXIST) {
		fprintf(stderr, "tunlab-virt: symlink %s -> %s: %s\n", path, o->cache,
			strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/etc", o->root);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "tunlab-virt: mkdir %s: %s\n", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/etc/qemu.conf", o->root);
	return copy_file(VIRT_CONF, path);
}

/* QEMU's pid, from the pid file the driver keeps for a running domain. */
static long qemu_pid(const struct virt_opts *o)
{
	char path[4096];
	long pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/run/qemu/%s.pid", o->root, o->name);
	f = fopen(path, "r");
	if (f && fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	if (f)
		fclose(f);
	return pid;
}

/* The guest's tap as libvirt made it (it names one when the XML did not). */
static char *domain_tap(virDomainPtr dom)
{
	char *xml = virDomainGetXMLDesc(dom, 0), *tap = NULL;
	xmlDocPtr doc = xml ? xmlReadMemory(xml, (int)strlen(xml), "domain.xml", NULL, 0) : NULL;
	xmlXPathContextPtr ctx = doc ? xmlXPathNewContext(doc) : NULL;
	xmlXPathObjectPtr v = ctx ? xmlXPathEvalExpression(
		BAD_CAST "string(/domain/devices/interface/target/@dev)", ctx) : NULL;

	if (v && v->type == XPATH_STRING && v->stringval && *v->stringval)
		tap = strdup((const char *)v->stringval);
	xmlXPathFreeObject(v);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	free(xml);
	return tap ? tap : strdup("?");
}

/* Until the guest stops by itself, or a signal says to destroy it. */
static void wait_for_end(virDomainPtr dom)
{
	sigset_t set;
	struct pollfd p[2];

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	p[0] = (struct pollfd){ .fd = signalfd(-1, &set, SFD_CLOEXEC), .events = POLLIN };
	p[1] = (struct pollfd){ .fd = stopped_pipe[0], .events = POLLIN };
	while (poll(p, 2, -1) < 0 && errno == EINTR)
		;
	if (!p[1].revents && virDomainDestroy(dom) < 0)
		report_error("virDomainDestroy");
}

static void usage(FILE *out)
{
	fputs("usage: tunlab-virt --root DIR --cache DIR --name NAME --kernel FILE\n"
	      "         --initrd FILE --bios FILE --append ARGS --console FILE --ctl SOCKET\n"
	      "         --mac MAC [--tap NAME [--premade]] [--vhost on|off] [--cpu SPEC]\n"
	      "         [--mem MB] [--print-xml FILE]\n"
	      "Start an L2 guest through libvirt's QEMU driver embedded in this process.\n"
	      "--tap: the guest's tap (libvirt names one without it); --premade: it exists\n"
	      "(managed='no'). --cpu: as QEMU's -cpu, e.g. host,-xsave (default host).\n", out);
}

static int parse_opts(int argc, char **argv, struct virt_opts *o)
{
	static const struct option longopts[] = {
		{ "root", 1, NULL, 'r' }, { "cache", 1, NULL, 'K' },
		{ "name", 1, NULL, 'n' }, { "kernel", 1, NULL, 'k' },
		{ "initrd", 1, NULL, 'i' }, { "bios", 1, NULL, 'b' },
		{ "append", 1, NULL, 'a' }, { "console", 1, NULL, 'c' },
		{ "ctl", 1, NULL, 's' }, { "mac", 1, NULL, 'm' },
		{ "tap", 1, NULL, 't' }, { "premade", 0, NULL, 'p' },
		{ "vhost", 1, NULL, 'v' }, { "cpu", 1, NULL, 'C' },
		{ "mem", 1, NULL, 'M' }, { "print-xml", 1, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct virt_opts){ .vhost = true, .cpu = "host", .mem_mb = 192 };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': o->root = optarg; break;
		case 'K': o->cache = optarg; break;
		case 'n': o->name = optarg; break;
		case 'k': o->kernel = optarg; break;
		case 'i': o->initrd = optarg; break;
		case 'b': o->bios = optarg; break;
		case 'a': o->append = optarg; break;
		case 'c': o->console = optarg; break;
		case 's': o->ctl = optarg; break;
		case 'm': o->mac = optarg; break;
		case 't': o->tap = optarg; break;
		case 'p': o->premade = true; break;
		case 'v': o->vhost = strcmp(optarg, "off") != 0; break;
		case 'C': o->cpu = optarg; break;
		case 'M': o->mem_mb = atoi(optarg); break;
		case 'x': o->xml_out = optarg; break;
		default: return -1;
		}
	}
	if (optind != argc || !o->root || !o->cache || !o->name || !o->kernel ||
	    !o->initrd || !o->bios || !o->append || !o->console || !o->ctl || !o->mac ||
	    (o->premade && !o->tap) || o->mem_mb <= 0)
		return -1;
	return 0;
}

static int write_xml(const char *path, const char *xml)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(xml, f) < 0 || fclose(f)) {
		fprintf(stderr, "tunlab-virt: write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct virt_opts o;
	virConnectPtr conn;
	virDomainPtr dom;
	pthread_t loop;
	char uri[4200], *xml, *tap;
	sigset_t set;

	if (parse_opts(argc, argv, &o) < 0) {
		usage(stderr);
		return 2;
	}
	/* the signals that end the guest are read in wait_for_end() */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	xml = domain_xml(&o);
	if ((o.xml_out && write_xml(o.xml_out, xml) < 0) ||
	    pipe2(stopped_pipe, O_CLOEXEC) < 0 || prepare_root(&o) < 0)
		return 1;
	/* the embedded driver needs an event loop running beside the API calls */
	if (virEventRegisterDefaultImpl() < 0)
		return report_error("virEventRegisterDefaultImpl");
	pthread_create(&loop, NULL, event_loop, NULL);
	snprintf(uri, sizeof(uri), "qemu:///embed?root=%s", o.root);
	conn = virConnectOpen(uri);
	if (!conn)
		return report_error(uri);
	if (virConnectDomainEventRegisterAny(conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
					     VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle),
					     NULL, NULL) < 0)
		return report_error("virConnectDomainEventRegisterAny");
	dom = virDomainCreateXML(conn, xml, 0);
	if (!dom) {
		report_error("virDomainCreateXML");
		virConnectClose(conn);
		return 1;
	}
	tap = domain_tap(dom);
	printf("started qemu=%ld tap=%s\n", qemu_pid(&o), tap);
	fflush(stdout);
	free(tap);
	wait_for_end(dom);
	virDomainFree(dom);
	virConnectClose(conn);
	xmlFree(xml);
	return 0;
}
