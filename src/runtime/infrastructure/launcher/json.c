#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_ws(json_in *in) {
  while (in->p < in->end && (*in->p == ' ' || *in->p == '\t' || *in->p == '\n' || *in->p == '\r')) in->p++;
}

int json_peek(json_in *in, char c) {
  json_ws(in);
  return in->p < in->end && *in->p == c;
}

int json_expect(json_in *in, char c) {
  if (json_peek(in, c)) {
    in->p++;
    return 1;
  }
  if (!in->error) in->error = in->p < in->end ? "unexpected character" : "unexpected end of message";
  return 0;
}

static int hex4(const char *p, unsigned *v) {
  *v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    unsigned d;
    if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
    else return 0;
    *v = *v * 16 + d;
  }
  return 1;
}

static size_t put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) { o[0] = (char)cp; return 1; }
  if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

char *json_string(json_in *in, size_t *len) {
  if (!json_expect(in, '"')) return NULL;
  /* decoded text is never longer than its escaped form */
  const char *start = in->p;
  const char *q = start;
  while (q < in->end && *q != '"') q += (*q == '\\' && q + 1 < in->end) ? 2 : 1;
  if (q >= in->end) { if (!in->error) in->error = "unterminated string"; return NULL; }
  char *buf = malloc((size_t)(q - start) + 1);
  if (!buf) { if (!in->error) in->error = "out of memory"; return NULL; }
  size_t n = 0;
  while (in->p < in->end && *in->p != '"') {
    unsigned char c = (unsigned char)*in->p;
    if (c < 0x20) { in->error = "control character in string"; free(buf); return NULL; }
    if (c != '\\') { buf[n++] = (char)c; in->p++; continue; }
    if (in->p + 1 >= in->end) break;
    char e = in->p[1];
    in->p += 2;
    switch (e) {
      case '"': buf[n++] = '"'; break;
      case '\\': buf[n++] = '\\'; break;
      case '/': buf[n++] = '/'; break;
      case 'b': buf[n++] = '\b'; break;
      case 'f': buf[n++] = '\f'; break;
      case 'n': buf[n++] = '\n'; break;
      case 'r': buf[n++] = '\r'; break;
      case 't': buf[n++] = '\t'; break;
      case 'u': {
        unsigned cp, lo;
        if (in->end - in->p < 4 || !hex4(in->p, &cp)) { in->error = "bad \\u escape"; free(buf); return NULL; }
        in->p += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF && in->end - in->p >= 6 && in->p[0] == '\\' && in->p[1] == 'u' &&
            hex4(in->p + 2, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          in->p += 6;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
          cp = 0xFFFD; /* a lone surrogate has no UTF-8 form */
        }
        n += put_utf8(buf + n, cp);
        break;
      }
      default: in->error = "bad escape in string"; free(buf); return NULL;
    }
  }
  if (!json_expect(in, '"')) { free(buf); return NULL; }
  buf[n] = 0;
  if (len) *len = n;
  return buf;
}

int json_number(json_in *in, double *value) {
  json_ws(in);
  const char *s = in->p;
  if (s < in->end && *s == '-') s++;
  while (s < in->end && ((*s >= '0' && *s <= '9') || *s == '.' || *s == 'e' || *s == 'E' || *s == '+' || *s == '-')) s++;
  size_t n = (size_t)(s - in->p);
  char tmp[64];
  if (n == 0 || n >= sizeof tmp) { if (!in->error) in->error = "expected a number"; return 0; }
  memcpy(tmp, in->p, n);
  tmp[n] = 0;
  char *stop;
  double v = strtod(tmp, &stop);
  if (*stop || !isfinite(v)) { if (!in->error) in->error = "bad number"; return 0; }
  in->p = s;
  *value = v;
  return 1;
}

static int literal(json_in *in, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(in->end - in->p) >= n && memcmp(in->p, word, n) == 0) { in->p += n; return 1; }
  if (!in->error) in->error = "unexpected character";
  return 0;
}

static int skip(json_in *in, int depth) {
  if (depth > 64) { if (!in->error) in->error = "nested too deep"; return 0; }
  json_ws(in);
  if (in->p >= in->end) { if (!in->error) in->error = "unexpected end of message"; return 0; }
  char c = *in->p;
  if (c == '"') { char *s = json_string(in, NULL); free(s); return s != NULL; }
  if (c == '{' || c == '[') {
    char close = c == '{' ? '}' : ']';
    in->p++;
    if (json_peek(in, close)) { in->p++; return 1; }
    for (;;) {
      if (c == '{') {
        char *k = json_string(in, NULL);
        if (!k) return 0;
        free(k);
        if (!json_expect(in, ':')) return 0;
      }
      if (!skip(in, depth + 1)) return 0;
      if (json_peek(in, ',')) { in->p++; continue; }
      return json_expect(in, close);
    }
  }
  if (c == 't') return literal(in, "true");
  if (c == 'f') return literal(in, "false");
  if (c == 'n') return literal(in, "null");
  double v;
  return json_number(in, &v);
}

int json_skip(json_in *in) { return skip(in, 0); }

void out_raw(json_out *out, const char *s, size_t n) {
  if (out->len + n + 1 > out->cap) {
    size_t cap = out->cap ? out->cap : 4096;
    while (out->len + n + 1 > cap) cap *= 2;
    char *d = realloc(out->data, cap);
    if (!d) abort(); /* nothing sensible is left to do without memory */
    out->data = d;
    out->cap = cap;
  }
  memcpy(out->data + out->len, s, n);
  out->len += n;
}

static void out_escaped_byte(json_out *out, unsigned char c) {
  char esc[8];
  switch (c) {
    case '"': out_raw(out, "\\\"", 2); return;
    case '\\': out_raw(out, "\\\\", 2); return;
    case '\n': out_raw(out, "\\n", 2); return;
    case '\r': out_raw(out, "\\r", 2); return;
    case '\t': out_raw(out, "\\t", 2); return;
    case '\b': out_raw(out, "\\b", 2); return;
    case '\f': out_raw(out, "\\f", 2); return;
    default:
      if (c < 0x20) {
        snprintf(esc, sizeof esc, "\\u%04x", c);
        out_raw(out, esc, 6);
      } else {
        out_raw(out, (const char *)&c, 1);
      }
  }
}

void out_str(json_out *out, const char *s) { out_utf8(out, (const unsigned char *)s, strlen(s)); }

/* The WHATWG decoder: each maximal invalid subpart becomes one U+FFFD, as in Buffer#toString. */
void out_utf8(json_out *out, const unsigned char *s, size_t n) {
  static const char fffd[] = "\xEF\xBF\xBD";
  out_raw(out, "\"", 1);
  size_t i = 0;
  while (i < n) {
    unsigned char b = s[i];
    if (b < 0x80) { out_escaped_byte(out, b); i++; continue; }
    int need;
    unsigned char lower = 0x80, upper = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) need = 1;
    else if (b == 0xE0) { need = 2; lower = 0xA0; }
    else if (b >= 0xE1 && b <= 0xEC) need = 2;
    else if (b == 0xED) { need = 2; upper = 0x9F; }
    else if (b >= 0xEE && b <= 0xEF) need = 2;
    else if (b == 0xF0) { need = 3; lower = 0x90; }
    else if (b >= 0xF1 && b <= 0xF3) need = 3;
    else if (b == 0xF4) { need = 3; upper = 0x8F; }
    else { out_raw(out, fffd, 3); i++; continue; }
    size_t k = 1;
    for (; k <= (size_t)need; k++) {
      if (i + k >= n) break;
      unsigned char c = s[i + k];
      if (c < lower || c > upper) break;
      lower = 0x80;
      upper = 0xBF;
    }
    if (k > (size_t)need) {
      out_raw(out, (const char *)s + i, (size_t)need + 1);
      i += (size_t)need + 1;
    } else {
      out_raw(out, fffd, 3);
      i += k;
    }
  }
  out_raw(out, "\"", 1);
}

void out_int(json_out *out, long long v) {
  char tmp[32];
  int n = snprintf(tmp, sizeof tmp, "%lld", v);
  out_raw(out, tmp, (size_t)n);
}
