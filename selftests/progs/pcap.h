/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal classic-pcap reader and writer (no libpcap on the test nodes' path). */
#ifndef FT_PCAP_H
#define FT_PCAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FT_LINKTYPE_ETHERNET	1
#define FT_LINKTYPE_LINUX_SLL	113

struct ft_pcap {
	FILE *f;
	bool swap;		/* file written on the other endianness */
	bool nsec;
	uint32_t linktype;
};

static inline uint32_t ft_pcap_u32(const struct ft_pcap *p, uint32_t v)
{
	return p->swap ? __builtin_bswap32(v) : v;
}

/* Writes the file header; link type Ethernet, microsecond stamps. */
static inline int ft_pcap_create(struct ft_pcap *p, const char *path)
{
	uint32_t hdr[6] = { 0xa1b2c3d4, 2 | 4 << 16, 0, 0, 65535, FT_LINKTYPE_ETHERNET };

	memset(p, 0, sizeof(*p));
	p->f = fopen(path, "wb");
	if (!p->f)
		return -1;
	p->linktype = FT_LINKTYPE_ETHERNET;
	return fwrite(hdr, sizeof(hdr), 1, p->f) == 1 ? 0 : -1;
}

static inline int ft_pcap_write(struct ft_pcap *p, double t, const void *frame, uint32_t len)
{
	uint32_t rec[4] = { (uint32_t)t, (uint32_t)((t - (uint32_t)t) * 1e6), len, len };

	if (fwrite(rec, sizeof(rec), 1, p->f) != 1 || fwrite(frame, len, 1, p->f) != 1)
		return -1;
	return 0;
}

/* Returns NULL on success, else why the file cannot be read. */
static inline const char *ft_pcap_open(struct ft_pcap *p, const char *path)
{
	uint32_t hdr[6];

	memset(p, 0, sizeof(*p));
	p->f = fopen(path, "rb");
	if (!p->f)
		return "cannot open";
	if (fread(hdr, sizeof(hdr), 1, p->f) != 1)
		return "too short for a pcap header";
	switch (hdr[0]) {
	case 0xa1b2c3d4: break;
	case 0xa1b23c4d: p->nsec = true; break;
	case 0xd4c3b2a1: p->swap = true; break;
	case 0x4d3cb2a1: p->swap = p->nsec = true; break;
	case 0x0a0d0d0a: return "pcapng, not pcap (tcpdump -w writes pcap; or editcap -F pcap)";
	default: return "not a pcap file";
	}
	p->linktype = ft_pcap_u32(p, hdr[5]);
	return NULL;
}

/* Next frame into BUF (truncated to CAP); returns its captured length,
 * 0 at the end of the file, -1 on a damaged file. */
static inline long ft_pcap_next(struct ft_pcap *p, uint8_t *buf, uint32_t cap)
{
	uint32_t rec[4], len;

	if (fread(rec, sizeof(rec), 1, p->f) != 1)
		return 0;
	len = ft_pcap_u32(p, rec[2]);
	if (len > 262144)
		return -1;
	if (len <= cap)
		return fread(buf, 1, len, p->f) == len ? (long)len : -1;
	if (fread(buf, 1, cap, p->f) != cap || fseek(p->f, len - cap, SEEK_CUR))
		return -1;
	return cap;
}

static inline void ft_pcap_close(struct ft_pcap *p)
{
	if (p->f)
		fclose(p->f);
	p->f = NULL;
}

#endif
