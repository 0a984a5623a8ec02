/*
 * request.c - what both encodings share: the envelope, responses, errors,
 * notifications, and the parameter checks of the method table.
 */
#include <string.h>

#include "proto.h"

static const char *const err_names[PROTO_E_COUNT] = {
	[PROTO_OK] = "ok",
	[PROTO_E_BAD_REQUEST] = "bad_request",
	[PROTO_E_UNKNOWN_METHOD] = "unknown_method",
	[PROTO_E_INVALID_PARAMS] = "invalid_params",
	[PROTO_E_NO_SUCH_GAME] = "no_such_game",
	[PROTO_E_FORBIDDEN] = "forbidden",
	[PROTO_E_NOT_YOUR_TURN] = "not_your_turn",
	[PROTO_E_ILLEGAL_MOVE] = "illegal_move",
	[PROTO_E_CONFLICT] = "conflict",
	[PROTO_E_GAME_OVER] = "game_over",
	[PROTO_E_LIMIT] = "limit",
	[PROTO_E_INTERNAL] = "internal",
};

const char *proto_strerror(proto_err code)
{
	return (int)code >= 0 && code < PROTO_E_COUNT ? err_names[code] : "internal";
}

proto_enc proto_enc_detect(uint8_t first)
{
	return (first >= 0x90 && first <= 0x9f) || first == 0xdc || first == 0xdd ? PROTO_ENC_MSGPACK : PROTO_ENC_JSON;
}

void proto_encode(const proto_val *msg, proto_enc enc, proto_buf *out)
{
	if (enc == PROTO_ENC_MSGPACK) {
		proto_mp_encode(msg, out);
	} else {
		proto_json_encode(msg, out);
		proto_buf_addc(out, '\n');
	}
}

static proto_decoded failed(proto_err code, const char *why)
{
	proto_decoded d = { code, why, 0, 0 };
	return d;
}

proto_decoded proto_envelope(proto_arena *a, const proto_val *env, proto_request *rq)
{
	static const char shape[] = "a request is an array [0, msgid, method, params]";
	memset(rq, 0, sizeof *rq);
	/* any array long enough to hold a msgid is answered with it when it is
	 * one, whatever else is wrong with it: a client waiting on that msgid
	 * hears why */
	if (env->type != PV_ARRAY || env->n < 2) return failed(PROTO_E_BAD_REQUEST, shape);
	const proto_val *type = env->u.c.first, *id = type->next;
	int64_t i;
	/* the msgid first, so that every later error can answer it */
	rq->has_id = proto_msgid_of(id, &rq->msgid);
	int id_ok = id->type == PV_NIL || rq->has_id;
	/* a response or a notification ([2, "event", ...]) is told so, not
	 * that its second member is no msgid */
	if (!pv_to_int(type, &i) || i != 0) return failed(PROTO_E_BAD_REQUEST, "only requests (type 0) go to the server");
	if (!id_ok) return failed(PROTO_E_BAD_REQUEST, "the msgid must be an integer from 0 to 2^32-1");
	if (env->n != 4) return failed(PROTO_E_BAD_REQUEST, shape);
	const proto_val *method = id->next, *params = method->next;
	if (method->type != PV_STR || memchr(method->u.s, 0, method->n))
		return failed(PROTO_E_BAD_REQUEST, "the method must be a string");
	rq->method = method->u.s;
	rq->params = proto_params_of(a, params);
	if (!rq->params) return failed(PROTO_E_BAD_REQUEST, PROTO_PARAMS_SHAPE);
	return failed(PROTO_OK, NULL);
}

int proto_msgid_of(const proto_val *id, uint32_t *msgid)
{
	int64_t i;
	if (!pv_to_int(id, &i) || i < 0 || i > UINT32_MAX) return 0;
	*msgid = (uint32_t)i;
	return 1;
}

const proto_val *proto_params_of(proto_arena *a, const proto_val *params)
{
	if (params->type == PV_NIL || (params->type == PV_ARRAY && params->n == 0)) return pv_map(a);
	if (params->type == PV_MAP) return params;
	if (params->type == PV_ARRAY && params->n == 1 && params->u.c.first->type == PV_MAP) return params->u.c.first;
	return NULL;
}

static proto_val *envelope(proto_arena *a, const proto_request *rq, proto_val *error, proto_val *result)
{
	proto_val *m = pv_array(a);
	pv_push(m, pv_int(a, 1));
	pv_push(m, rq && rq->has_id ? pv_int(a, rq->msgid) : pv_nil(a));
	pv_push(m, error);
	pv_push(m, result);
	return m;
}

proto_val *proto_response(proto_arena *a, const proto_request *rq, proto_val *result)
{
	return envelope(a, rq, pv_nil(a), result);
}

proto_val *proto_error_data(proto_arena *a, const proto_request *rq, proto_err code, const char *message,
                            proto_val *data)
{
	proto_val *e = pv_map(a);
	pv_set_str(a, e, "code", proto_strerror(code));
	pv_set_str(a, e, "message", message ? message : proto_strerror(code));
	if (data) pv_set(e, "data", data);
	return envelope(a, rq, e, pv_nil(a));
}

proto_val *proto_error(proto_arena *a, const proto_request *rq, proto_err code, const char *message)
{
	return proto_error_data(a, rq, code, message, NULL);
}

proto_val *proto_notification(proto_arena *a, int64_t game, uint32_t seq, proto_val *events)
{
	proto_val *m = pv_array(a), *p = pv_map(a);
	pv_push(m, pv_int(a, 2));
	pv_push(m, pv_str(a, "event"));
	pv_set_int(a, p, "game", game);
	pv_set_int(a, p, "seq", seq);
	pv_set(p, "events", events);
	pv_push(m, p);
	return m;
}

/* ---- parameters -------------------------------------------------------------- */

const char *proto_ptype_name(proto_ptype t)
{
	switch (t) {
	case PROTO_P_INT: return "integer";
	case PROTO_P_STR: return "string";
	case PROTO_P_BOOL: return "boolean";
	case PROTO_P_MAP: return "map";
	case PROTO_P_ARRAY: return "array";
	case PROTO_P_ANY: return "any";
	}
	return "?";
}

static int has_type(const proto_val *v, proto_ptype t)
{
	int64_t i;
	switch (t) {
	case PROTO_P_INT: return pv_to_int(v, &i);
	case PROTO_P_STR: return v->type == PV_STR;
	case PROTO_P_BOOL: return v->type == PV_BOOL;
	case PROTO_P_MAP: return v->type == PV_MAP;
	case PROTO_P_ARRAY: return v->type == PV_ARRAY;
	case PROTO_P_ANY: return 1;
	}
	return 0;
}

/* An integer past int64 (valid JSON, or a MessagePack uint64 from 2^63),
 * which the decoders keep as a float: out of range, not "no integer".
 * Every finite double that large is integral. */
static int past_int64(const proto_val *v)
{
	return v->type == PV_FLOAT && v->u.f - v->u.f == 0 && (v->u.f >= 9223372036854775808.0 || v->u.f <= -9223372036854775808.0);
}

proto_err proto_params_check(proto_arena *a, const proto_param *spec, const proto_val *params, const char **why)
{
	for (const proto_param *p = spec; p && p->name; p++) {
		const proto_val *v = pv_get(params, p->name);
		/* nil is "not given", as optional parameters come from clients
		 * that fill every keyword */
		if (!v || v->type == PV_NIL) {
			if (!p->required) continue;
			*why = proto_arena_printf(a, "missing parameter `%s` (%s)", p->name, proto_ptype_name(p->type));
			return PROTO_E_INVALID_PARAMS;
		}
		if (p->type == PROTO_P_INT && past_int64(v)) {
			*why = p->min || p->max ? proto_arena_printf(a, "parameter `%s` must be from %lld to %lld", p->name,
			                                             (long long)p->min, (long long)p->max)
			                        : proto_arena_printf(a, "parameter `%s` is an integer past 64 bits", p->name);
			return PROTO_E_INVALID_PARAMS;
		}
		if (!has_type(v, p->type)) {
			*why = proto_arena_printf(a, "parameter `%s` must be a%s %s", p->name,
			                          p->type == PROTO_P_INT || p->type == PROTO_P_ARRAY ? "n" : "",
			                          proto_ptype_name(p->type));
			return PROTO_E_INVALID_PARAMS;
		}
		int64_t i;
		if (p->type == PROTO_P_INT && (p->min || p->max) && pv_to_int(v, &i) && (i < p->min || i > p->max)) {
			*why = proto_arena_printf(a, "parameter `%s` must be from %lld to %lld", p->name, (long long)p->min,
			                          (long long)p->max);
			return PROTO_E_INVALID_PARAMS;
		}
	}
	return PROTO_OK;
}
