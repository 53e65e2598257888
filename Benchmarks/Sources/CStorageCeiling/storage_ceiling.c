// The raw-SQLite ceiling of the push figure: the rows our SQLite store writes for pushes of new expenses
// (Sources/ExpenseServer/SQLiteLedgerStore+Schema.swift after all its migrations, SQLiteLedgerRows.swift), written
// from C through the same libsqlite3 with the store's settings (WAL, synchronous=FULL, an 8 MiB page cache, the
// WAL checkpointed by a second connection on a thread of its own once it grew by 4,096 frames, as
// WALCheckpointer does) and its statements (multi-row INSERTs in chunks of 64 rows, then powers of two; a
// creation's constant columns as constants). What our store could reach if deciding, encoding and answering a
// push cost nothing: no JSON, no validation, no network, no second thread to hand work to.
//
// Per group commit (BEGIN IMMEDIATE … COMMIT): one `records` row per mutation, its creation in the row (author, client
// and time, the store's migration 14: no `history` row for a create) and its optional fields as one empty `extras`
// text (migration 16); per client of the group one `outcome_runs` row (a byte per outcome: a push of hundreds is
// past the open run's few dozen) and its `clients` row (an upsert, its open run empty); the runs that left a
// client's window of 10,000 mutationIds deleted. The totals per day and month are kept in memory by our store since
// its migration 8, so no row is written for them here either.

#include "storage_ceiling.h"
#include "sqlite_support.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RETENTION 10000

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long long thread_cpu_ns(void) {
    FILE *file = fopen("/proc/thread-self/schedstat", "r");
    unsigned long long ns = 0;
    if (file) {
        if (fscanf(file, "%llu", &ns) != 1) ns = 0;
        fclose(file);
    }
    return ns;
}

// One multi-row statement: `head` + `row`, `row`, … + `tail`, prepared for 2^k rows on first use.
// ---- the group's rows

static const char *categories[] = {"food", "travel", "rent", "office", "software", "hardware",
                                   "training", "phone", "fuel", "parking", "postage", "other"};

typedef struct {
    unsigned char id[16];
    long long seq, amount;
    const char *category;
    int day;
    int client;
} mutation;

typedef struct {
    unsigned char id[16];
    long long last_mutation_id, newest_run;
    // Its runs still kept, oldest first (run key and last mutationId), a ring.
    long long *run_keys, *run_lasts;
    int run_first, run_count, run_capacity;
} client;

typedef struct {
    mutation *mutations;
    client *clients;
    int *group_clients;  // the clients of this group, by index into `clients`
    int group_client_count, per_client;
    long long *run_keys, *deletes;
    int delete_count;
    unsigned char *outcomes;
    long long time;
} group;

static uint64_t random_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) {
    random_state ^= random_state << 13;
    random_state ^= random_state >> 7;
    random_state ^= random_state << 17;
    return random_state;
}

static int bind_record(sqlite3_stmt *s, int p, int index, void *context) {
    const mutation *m = &((group *)context)->mutations[index];
    sqlite3_bind_int64(s, p, m->seq);
    sqlite3_bind_int64(s, p + 1, m->amount);
    sqlite3_bind_text(s, p + 2, "USD", 3, SQLITE_STATIC);
    sqlite3_bind_text(s, p + 3, m->category, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, p + 4, m->day);
    sqlite3_bind_text(s, p + 5, "bench", 5, SQLITE_STATIC);
    sqlite3_bind_text(s, p + 6, "", 0, SQLITE_STATIC);  // extras: none of the optional fields
    sqlite3_bind_blob(s, p + 7, m->id, 16, SQLITE_STATIC);
    group *g = context;
    sqlite3_bind_int64(s, p + 8, 0);  // created_seq: the row's own
    sqlite3_bind_text(s, p + 9, "default", 7, SQLITE_STATIC);
    sqlite3_bind_blob(s, p + 10, g->clients[m->client].id, 16, SQLITE_STATIC);
    return sqlite3_bind_int64(s, p + 11, g->time);
}

static int bind_run(sqlite3_stmt *s, int p, int index, void *context) {
    group *g = context;
    const client *c = &g->clients[g->group_clients[index]];
    sqlite3_bind_int64(s, p, g->run_keys[index]);
    sqlite3_bind_blob(s, p + 1, c->id, 16, SQLITE_STATIC);
    sqlite3_bind_int64(s, p + 2, c->last_mutation_id - g->per_client + 1);
    sqlite3_bind_int64(s, p + 3, c->last_mutation_id);
    sqlite3_bind_int64(s, p + 4, c->newest_run);
    return sqlite3_bind_blob(s, p + 5, g->outcomes, g->per_client, SQLITE_STATIC);
}

static int bind_client(sqlite3_stmt *s, int p, int index, void *context) {
    group *g = context;
    const client *c = &g->clients[g->group_clients[index]];
    sqlite3_bind_blob(s, p, c->id, 16, SQLITE_STATIC);
    sqlite3_bind_int64(s, p + 1, c->last_mutation_id);
    return sqlite3_bind_int64(s, p + 2, g->run_keys[index]);  // newest_run; the open run stays empty
}

static int bind_delete(sqlite3_stmt *s, int p, int index, void *context) {
    return sqlite3_bind_int64(s, p, ((group *)context)->deletes[index]);
}

static const char *schema =
    "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = -8192; PRAGMA wal_autocheckpoint = 0;"
    "CREATE TABLE records (seq INTEGER PRIMARY KEY, id BLOB NOT NULL, version INTEGER NOT NULL, deleted INTEGER NOT NULL,"
    " amount INTEGER NOT NULL, currency TEXT NOT NULL, category TEXT NOT NULL, day INTEGER NOT NULL, note TEXT NOT NULL,"
    " extras TEXT NOT NULL, field_versions TEXT NOT NULL, created_seq INTEGER, created_by TEXT,"
    " created_client BLOB, created_time INTEGER);"
    "CREATE INDEX records_created ON records (created_seq) WHERE created_seq > 0;"
    "CREATE TABLE clients (id BLOB PRIMARY KEY, last_mutation_id INTEGER NOT NULL, newest_run INTEGER NOT NULL DEFAULT 0,"
    " open_first INTEGER NOT NULL DEFAULT 0, open_last INTEGER NOT NULL DEFAULT 0, open_outcomes BLOB) WITHOUT ROWID;"
    "CREATE TABLE outcome_runs (run INTEGER PRIMARY KEY, client BLOB NOT NULL, first_mutation_id INTEGER NOT NULL,"
    " last_mutation_id INTEGER NOT NULL, previous INTEGER NOT NULL, outcomes BLOB NOT NULL);"
    "CREATE TABLE history (seq INTEGER PRIMARY KEY, id BLOB NOT NULL, previous INTEGER NOT NULL, version INTEGER NOT NULL,"
    " action INTEGER NOT NULL, changes TEXT NOT NULL, who TEXT, client BLOB NOT NULL, time INTEGER NOT NULL,"
    " kind INTEGER NOT NULL DEFAULT 0);";

static int fail(storage_ceiling_result *result, sqlite3 *db, const char *what) {
    snprintf(result->error, sizeof result->error, "%s: %s", what, db ? sqlite3_errmsg(db) : "cannot open");
    return -1;
}

int storage_ceiling_run(const char *path, int group_mutations, int group_clients, double warmup_seconds,
                        double window_seconds, storage_ceiling_result *result) {
    memset(result, 0, sizeof *result);
    if (group_mutations < 1 || group_clients < 1 || group_mutations % group_clients != 0) {
        snprintf(result->error, sizeof result->error, "a group is whole pushes: %d mutations from %d clients",
                 group_mutations, group_clients);
        return -1;
    }
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        int code = fail(result, db, "open");
        sqlite3_close(db);
        return code;
    }
    if (sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK) {
        int code = fail(result, db, "schema");
        sqlite3_close(db);
        return code;
    }
    checkpointer background = {.path = path, .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};
    wal_state wal = {.checkpointer = &background};
    sqlite3_wal_hook(db, wal_hook, &wal);
    pthread_t checkpoint;
    pthread_create(&checkpoint, NULL, checkpoint_thread, &background);

    row_statement records, runs, clients, deletes;
    row_statement_init(&records, db,
                       "INSERT INTO records (seq, version, deleted, amount, currency, category, day, note, extras,"
                       " field_versions, id, created_seq, created_by, created_client, created_time) VALUES",
                       "(?, 1, 0, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?)", "");
    row_statement_init(&runs, db,
                       "INSERT INTO outcome_runs (run, client, first_mutation_id, last_mutation_id, previous, outcomes) VALUES",
                       "(?, ?, ?, ?, ?, ?)", "");
    row_statement_init(&clients, db,
                       "INSERT INTO clients (id, last_mutation_id, newest_run, open_first, open_last, open_outcomes) VALUES",
                       "(?, ?, ?, 0, 0, NULL)",
                       "ON CONFLICT (id) DO UPDATE SET last_mutation_id = excluded.last_mutation_id,"
                       " newest_run = excluded.newest_run, open_first = excluded.open_first, open_last = excluded.open_last,"
                       " open_outcomes = excluded.open_outcomes");
    row_statement_init(&deletes, db, "DELETE FROM outcome_runs WHERE run IN (", "?", ")");

    // As many clients as the 16 connections of the push figure (or the group's, if more), each group taking the
    // next ones in turn; each client's runs kept until they leave its window.
    int client_count = group_clients > 16 ? group_clients : 16, per_client = group_mutations / group_clients;
    int run_capacity = RETENTION / per_client + 2;
    group g = {.mutations = calloc((size_t)group_mutations, sizeof(mutation)),
               .clients = calloc((size_t)client_count, sizeof(client)),
               .group_clients = calloc((size_t)group_clients, sizeof(int)),
               .group_client_count = group_clients, .per_client = per_client,
               .run_keys = calloc((size_t)group_clients, sizeof(long long)),
               .deletes = calloc((size_t)group_clients * (size_t)run_capacity, sizeof(long long)),
               .outcomes = calloc((size_t)per_client, 1)};
    for (int i = 0; i < client_count; i++) {
        for (int b = 0; b < 16; b += 8) {
            uint64_t r = next_random();
            memcpy(g.clients[i].id + b, &r, 8);
        }
        g.clients[i].run_keys = calloc((size_t)run_capacity, sizeof(long long));
        g.clients[i].run_lasts = calloc((size_t)run_capacity, sizeof(long long));
        g.clients[i].run_capacity = run_capacity;
    }

    long long head = 0, position = 0, groups = 0;
    double began = now_seconds(), from = began + warmup_seconds, until = from + window_seconds;
    unsigned long long cpu_from = 0;
    int measuring = 0, code = 0;
    for (;;) {
        double start = now_seconds();
        if (start >= until) break;
        if (!measuring && start >= from) {
            measuring = 1;
            cpu_from = thread_cpu_ns();
        }
        g.time = (long long)time(NULL);
        for (int i = 0; i < group_clients; i++) g.group_clients[i] = (int)((groups * group_clients + i) % client_count);
        for (int i = 0; i < group_mutations; i++) {
            mutation *m = &g.mutations[i];
            uint64_t r = next_random();
            memcpy(m->id, &r, 8);
            r = next_random();
            memcpy(m->id + 8, &r, 8);
            m->seq = ++head;
            m->amount = 100 + (long long)(r % 50000);
            m->category = categories[r % 12];
            int month = (int)(r / 12 % 12) + 1, day = (int)(r / 144 % 28) + 1, year = 2024 + (int)(r / 4032 % 2);
            m->day = year * 10000 + month * 100 + day;
            m->client = g.group_clients[i / per_client];
        }
        // Each client's run: its key (outcomes appended through its last), its last mutationId; the runs that
        // left its window go.
        g.delete_count = 0;
        for (int i = 0; i < group_clients; i++) {
            client *c = &g.clients[g.group_clients[i]];
            position += per_client;
            g.run_keys[i] = position;
            c->last_mutation_id += per_client;
            while (c->run_count > 0 && c->run_lasts[c->run_first] <= c->last_mutation_id - RETENTION) {
                g.deletes[g.delete_count++] = c->run_keys[c->run_first];
                c->run_first = (c->run_first + 1) % c->run_capacity;
                c->run_count--;
            }
        }
        int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc == SQLITE_OK) rc = row_statement_run(&records, group_mutations, bind_record, &g);
        if (rc == SQLITE_OK) rc = row_statement_run(&runs, group_clients, bind_run, &g);
        if (rc == SQLITE_OK) rc = row_statement_run(&clients, group_clients, bind_client, &g);
        if (rc == SQLITE_OK) rc = row_statement_run(&deletes, g.delete_count, bind_delete, &g);
        if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            code = fail(result, db, "a group commit");
            break;
        }
        for (int i = 0; i < group_clients; i++) {
            client *c = &g.clients[g.group_clients[i]];
            c->newest_run = g.run_keys[i];
            int slot = (c->run_first + c->run_count) % c->run_capacity;
            c->run_keys[slot] = g.run_keys[i];
            c->run_lasts[slot] = c->last_mutation_id;
            c->run_count++;
        }
        after_commit(db, &wal);
        groups++;
        double end = now_seconds();
        if (start >= from && end <= until) {
            result->mutations += group_mutations;
            result->commits++;
        }
    }
    if (measuring) result->writer_cpu_ns = thread_cpu_ns() - cpu_from;

    pthread_mutex_lock(&background.lock);
    background.stop = 1;
    pthread_cond_signal(&background.wake);
    pthread_mutex_unlock(&background.lock);
    pthread_join(checkpoint, NULL);
    row_statement_finalize(&records);
    row_statement_finalize(&runs);
    row_statement_finalize(&clients);
    row_statement_finalize(&deletes);
    sqlite3_close(db);
    for (int i = 0; i < client_count; i++) {
        free(g.clients[i].run_keys);
        free(g.clients[i].run_lasts);
    }
    free(g.mutations);
    free(g.clients);
    free(g.group_clients);
    free(g.run_keys);
    free(g.deletes);
    free(g.outcomes);
    return code;
}
