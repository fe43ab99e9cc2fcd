/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-httpd's framing rules on top of http-parser: what RFC 9112 makes a
 * server refuse and http-parser lets through.
 *
 * Debian builds http-parser with HTTP_PARSER_STRICT=0, which takes a space
 * as a character of a header name: "Transfer-Encoding : chunked" is the
 * name "Transfer-Encoding " to our checks, yet the parser frames the body
 * by it. A proxy in front that reads the same bytes another way (nginx
 * answers 400) would see a different request boundary: a smuggled request.
 * So whatever two parsers may read two ways is refused, and the connection
 * closed: a header name with a byte that is not a token character (400,
 * RFC 9112 5.1), an obs-fold line (400, RFC 9112 5.2), a major version
 * other than 1 (505), an unknown method (501, RFC 9110 9.1). The ID in a
 * request target is read here too.
 */
#include <string.h>
#include <strings.h>

#include "hd_conn.h"

bool
hd_tchar(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       (ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

int
hd_name_status(const char *at, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!hd_tchar(at[i]))
			return 400;
	return 0;
}

/*
 * The bytes between header callbacks (the ": " after a name, the CRLF
 * after a value) are read here; a line break followed by a space or a tab
 * is an obs-fold. http-parser hands such a line to on_header_value as
 * more of the value (or, after an empty value, as the value), never as a
 * callback of its own, so the bytes around the callbacks are the only place
 * it shows.
 */
void
hd_gap_scan(struct hd_conn *c, const char *b, const char *e)
{
	for (; b < e; b++) {
		if (c->gap_lf && (*b == ' ' || *b == '\t'))
			c->gap_fold = true;
		c->gap_lf = *b == '\n';
	}
}

void
hd_gap_reset(struct hd_conn *c, const char *from)
{
	c->gap_from = from;
	c->gap_lf = c->gap_fold = false;
}

int
hd_value_status(struct hd_conn *c, const char *at, size_t len)
{
	hd_gap_scan(c, c->gap_from, at);
	/* A folded line's value starts with its space: "\r\n b". */
	if (len > 0)
		hd_gap_scan(c, at, at + 1);
	return c->gap_fold ? 400 : 0;
}

int
hd_version_status(const http_parser *p)
{
	/* HTTP/1.2 and the like are served as 1.1 (RFC 9110 2.5); HTTP/0.9
	 * (a request line without a version) and 2.0 or later are not HTTP/1. */
	return p->http_major == 1 ? 0 : 505;
}

/*
 * http-parser refused the method at @p rest (the byte it stopped at, and
 * what follows in this read). The bytes it matched before are a prefix of
 * a method it knows, so token characters; the method is a token up to a
 * space: 501 for a method this server does not know (RFC 9110 9.1), 400
 * for one that is no token ("G@T"). A token cut by the end of the read is
 * taken as a method too: no token character can make it a valid request
 * line of a method http-parser knows.
 */
int
hd_method_status(const struct hd_conn *c, const char *rest, size_t len)
{
	size_t i = 0;

	while (i < len && hd_tchar(rest[i]))
		i++;
	if (i == 0 && !c->in_req)
		return 400; /* no method at all */
	return i == len || rest[i] == ' ' ? 501 : 400;
}

/*
 * What the Transfer-Encoding list calls for: 0 (chunked, once, last);
 * 400 for a malformed list, chunked twice or not last (RFC 9112 6.3);
 * 501 for a coding this server does not do (gzip, chunked) (RFC 9112 6.1).
 */
int
hd_te_status(const struct hd_conn *c)
{
	unsigned int n_chunked = 0, n_codings = 0;
	bool other = false, chunked_last = false;
	size_t i = 0, len = c->te_len;

	if (len > TE_MAX)
		return 400;
	while (i <= len) {
		size_t b, e;

		while (i < len && (c->te[i] == ' ' || c->te[i] == '\t'))
			i++;
		b = i;
		while (i < len && hd_tchar(c->te[i]))
			i++;
		e = i;
		if (i < len && c->te[i] == ';') /* parameters: not looked at */
			while (i < len && c->te[i] != ',')
				i++;
		while (i < len && (c->te[i] == ' ' || c->te[i] == '\t'))
			i++;
		if (i < len && c->te[i] != ',')
			return 400; /* not a token */
		i++;
		if (e == b)
			continue; /* an empty element, which a list may have */
		n_codings++;
		chunked_last = e - b == 7 && strncasecmp(c->te + b, "chunked", 7) == 0;
		if (chunked_last)
			n_chunked++;
		else
			other = true;
	}
	if (n_codings == 0 || n_chunked > 1 || (n_chunked == 1 && !chunked_last))
		return 400;
	return other ? 501 : 0;
}

/* A decimal of at most 10 digits and nothing else, up to @p max: the ID of
 * a request target (/user/ID, /bytes/N). */
bool
hd_parse_id(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 10)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}
