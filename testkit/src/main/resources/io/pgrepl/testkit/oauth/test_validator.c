/*
 * A PostgreSQL 18 OAuth validator module for the OAuth tests (testkit OAuthValidator): it authorizes exactly the tokens
 * listed below and nothing else, so the test can present a good and a bad token to a real server.
 *
 * The test kit's server binaries ship no server headers (and Debian bookworm only packages those
 * of PostgreSQL 15), so the two structures the server reads from a module are declared here by
 * hand, following the layouts of PostgreSQL 18's fmgr.h (Pg_magic_struct) and libpq/oauth.h
 * (OAuthValidatorCallbacks, ValidatorModuleResult). pstrdup is resolved from the server binary.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    int len;
    int version;        /* PG_VERSION_NUM / 100 */
    int funcmaxargs;
    int indexmaxkeys;
    int namedatalen;
    int float8byval;
    char abi_extra[32];
    const char *name;   /* 18: PG_MODULE_MAGIC_EXT */
    const char *module_version;
} module_magic;

static const module_magic magic = {
    sizeof(module_magic), 1800, 100, 32, 64, 1, "PostgreSQL", "pgrepl_test_validator", "1"
};

const module_magic *Pg_magic_func(void) { return &magic; }

typedef struct { int sversion; void *private_data; } validator_state;
typedef struct { bool authorized; char *authn_id; } validator_result;

extern char *pstrdup(const char *in);

static bool validate(const validator_state *state, const char *token, const char *role, validator_result *result)
{
    (void) state;
    result->authorized = strcmp(token, "pgrepl-good-token.v1") == 0 || strcmp(token, "pgrepl-good-token.v2") == 0;
    result->authn_id = result->authorized ? pstrdup(role) : NULL;
    return true;
}

typedef struct {
    uint32_t magic;     /* PG_OAUTH_VALIDATOR_MAGIC */
    void *startup_cb;
    void *shutdown_cb;
    bool (*validate_cb)(const validator_state *, const char *, const char *, validator_result *);
} validator_callbacks;

static const validator_callbacks callbacks = { 0x20250220, NULL, NULL, validate };

const validator_callbacks *_PG_oauth_validator_module_init(void) { return &callbacks; }
