/* A small JSON reader for the launcher's requests and a writer for its answers. */
#ifndef ORBIT_LAUNCHER_JSON_H
#define ORBIT_LAUNCHER_JSON_H
#include <stddef.h>

typedef struct {
  const char *p;
  const char *end;
  const char *error; /* the first thing wrong, or NULL */
} json_in;

typedef struct {
  char *data;
  size_t len;
  size_t cap;
} json_out;

void json_ws(json_in *in);
int json_peek(json_in *in, char c);
int json_expect(json_in *in, char c);
/* A string, decoded to UTF-8 in a new buffer (length in *len); NULL on error. */
char *json_string(json_in *in, size_t *len);
/* A number; 0 on error. */
int json_number(json_in *in, double *value);
/* Skips any value, nested at most 64 deep. */
int json_skip(json_in *in);

void out_raw(json_out *out, const char *s, size_t n);
void out_str(json_out *out, const char *s);
/* Bytes as a JSON string, invalid UTF-8 replaced by U+FFFD the way Node's decoder does. */
void out_utf8(json_out *out, const unsigned char *s, size_t n);
void out_int(json_out *out, long long v);
#endif
