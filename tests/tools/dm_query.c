// SPDX-License-Identifier: GPL-2.0
/*
 * dm_query: one Device Management GET (or SET, or another method) to a
 * port's own GID through the user MAD interface (ib_umad), as srp_daemon
 * and ibsrpdm ask a target; prints the answer, one "key=value" per field.
 *
 * usage: dm_query DEVICE PORT ATTR_ID [ATTR_MOD [METHOD]]
 *   ATTR_ID, ATTR_MOD, METHOD in C notation (0x11, 0x10000); METHOD 1 (GET)
 *   by default. Exit 0 with "status=..." when an answer came, 1 when none
 *   came (timeout), 2 on a usage or setup error.
 *
 * On RoCE a MAD needs a GRH: the destination is GID index 0 of the port
 * itself (read from sysfs), QP 1 with the well-known Q_Key.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#define MAD_SIZE 256
#define DATA 64			/* DM data offset */
#define QP1_QKEY 0x80010000

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

static int own_gid(const char *dev, int port, uint8_t gid[16])
{
	char path[256], text[64];
	unsigned int w[8];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gids/0", dev, port);
	f = fopen(path, "r");
	if (!f || !fgets(text, sizeof(text), f) ||
	    sscanf(text, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3], &w[4], &w[5],
		   &w[6], &w[7]) != 8) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	for (i = 0; i < 8; i++) {
		gid[2 * i] = (uint8_t)(w[i] >> 8);
		gid[2 * i + 1] = (uint8_t)w[i];
	}
	return 0;
}

static void print_answer(const uint8_t *m)
{
	const uint8_t *d = m + DATA;
	uint16_t attr = be16(m + 16);
	int i;

	printf("status=0x%04x method=0x%02x tid=0x%016llx attr=0x%04x attr_mod=0x%08x\n",
	       be16(m + 4), m[3], (unsigned long long)be64(m + 8), attr, be32(m + 20));
	if (be16(m + 4) != 0)
		return;
	switch (attr) {
	case 0x01:
		printf("base_version=%u class_version=%u resp_time=%u\n", d[0], d[1],
		       be32(d + 4) & 0x1f);
		break;
	case 0x10:
		printf("change_id=%u max_controllers=%u controller_list=", be16(d), d[2]);
		for (i = 0; i < 8; i++)
			printf("%02x", d[4 + i]);
		printf("\n");
		break;
	case 0x11:
		printf("guid=0x%016llx vendor_id=0x%06x device_id=0x%x device_version=0x%x\n",
		       (unsigned long long)be64(d), be32(d + 8), be32(d + 12), be16(d + 16));
		printf("io_class=0x%04x io_subclass=0x%04x protocol=0x%04x protocol_version=%u\n",
		       be16(d + 28), be16(d + 30), be16(d + 32), be16(d + 34));
		printf("send_queue_depth=%u rdma_read_depth=%u send_size=%u rdma_size=%u\n",
		       be16(d + 40), d[43], be32(d + 44), be32(d + 48));
		printf("op_cap_mask=0x%02x num_svc_entries=%u id_string=%.64s\n", d[52], d[54],
		       (const char *)d + 64);
		break;
	case 0x12:
		printf("name=%.40s id=0x%016llx\n", (const char *)d,
		       (unsigned long long)be64(d + 40));
		break;
	}
}

int main(int argc, char **argv)
{
	ib_mad_addr_t addr;
	uint8_t *umad, *mad;
	uint32_t attr_mod = 0;
	int fd, agent, len, port, method = 1;
	unsigned int attr;

	if (argc < 4) {
		fprintf(stderr, "usage: %s DEVICE PORT ATTR_ID [ATTR_MOD [METHOD]]\n", argv[0]);
		return 2;
	}
	port = atoi(argv[2]);
	attr = (unsigned int)strtoul(argv[3], NULL, 0);
	if (argc > 4)
		attr_mod = (uint32_t)strtoul(argv[4], NULL, 0);
	if (argc > 5)
		method = (int)strtol(argv[5], NULL, 0);

	memset(&addr, 0, sizeof(addr));
	if (own_gid(argv[1], port, addr.gid)) {
		printf("error reading GID 0 of %s port %d\n", argv[1], port);
		return 2;
	}
	if (umad_init() < 0) {
		printf("error umad_init\n");
		return 2;
	}
	fd = umad_open_port(argv[1], port);
	if (fd < 0) {
		printf("error umad_open_port: %s\n", strerror(-fd));
		return 2;
	}
	/* No method mask: a client that only gets the answers to its requests. */
	agent = umad_register(fd, 0x06, 1, 0, NULL);
	if (agent < 0) {
		printf("error umad_register: %s\n", strerror(-agent));
		return 2;
	}
	umad = umad_alloc(1, umad_size() + MAD_SIZE);
	if (!umad) {
		printf("error umad_alloc\n");
		return 2;
	}
	memset(umad, 0, umad_size() + MAD_SIZE);
	mad = umad_get_mad(umad);
	mad[0] = 1;			/* base version */
	mad[1] = 0x06;			/* Device Management */
	mad[2] = 1;			/* class version */
	mad[3] = (uint8_t)method;
	mad[12] = 0x5a;			/* TID, low half */
	mad[15] = 0x01;
	mad[16] = (uint8_t)(attr >> 8);
	mad[17] = (uint8_t)attr;
	mad[20] = (uint8_t)(attr_mod >> 24);
	mad[21] = (uint8_t)(attr_mod >> 16);
	mad[22] = (uint8_t)(attr_mod >> 8);
	mad[23] = (uint8_t)attr_mod;

	umad_set_addr(umad, 0, 1, 0, QP1_QKEY);
	addr.grh_present = 1;
	addr.gid_index = 0;
	addr.hop_limit = 64;
	umad_set_grh(umad, &addr);
	if (umad_send(fd, agent, umad, MAD_SIZE, 2000, 2) < 0) {
		printf("error umad_send: %s\n", strerror(errno));
		return 2;
	}
	len = MAD_SIZE;
	if (umad_recv(fd, umad, &len, 10000) < 0) {
		printf("error umad_recv: %s\n", strerror(errno));
		return 1;
	}
	if (umad_status(umad)) {
		printf("no answer: status %d\n", umad_status(umad));
		return 1;
	}
	print_answer(umad_get_mad(umad));
	return 0;
}
