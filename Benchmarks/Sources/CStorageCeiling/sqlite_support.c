// The statements and checkpoints of storage_ceiling.c (sqlite_support.h).

#include "sqlite_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void row_statement_init(row_statement *s, sqlite3 *db, const char *head, const char *row, const char *tail) {
    memset(s, 0, sizeof *s);
    s->db = db;
    s->head = head;
    s->row = row;
    s->tail = tail;
    for (const char *c = row; *c; c++) s->columns += *c == '?';
}

static sqlite3_stmt *row_statement_get(row_statement *s, int power) {
    if (s->statements[power]) return s->statements[power];
    int rows = 1 << power;
    size_t length = strlen(s->head) + strlen(s->tail) + (size_t)rows * (strlen(s->row) + 2) + 4;
    char *sql = malloc(length);
    if (!sql) return NULL;
    char *end = sql + sprintf(sql, "%s ", s->head);
    for (int i = 0; i < rows; i++) end += sprintf(end, i ? ", %s" : "%s", s->row);
    sprintf(end, " %s", s->tail);
    if (sqlite3_prepare_v2(s->db, sql, -1, &s->statements[power], NULL) != SQLITE_OK) s->statements[power] = NULL;
    free(sql);
    return s->statements[power];
}

int row_statement_run(row_statement *s, int count, bind_row bind, void *context) {
    int done = 0;
    while (done < count) {
        int left = count - done, power = 0;
        while (power < 6 && (2 << power) <= left) power++;
        sqlite3_stmt *statement = row_statement_get(s, power);
        if (!statement) return SQLITE_ERROR;
        sqlite3_reset(statement);
        for (int i = 0; i < (1 << power); i++) {
            int rc = bind(statement, 1 + i * s->columns, done + i, context);
            if (rc != SQLITE_OK) return rc;
        }
        int rc = sqlite3_step(statement);
        sqlite3_clear_bindings(statement);
        if (rc != SQLITE_DONE) return rc;
        done += 1 << power;
    }
    return SQLITE_OK;
}

void row_statement_finalize(row_statement *s) {
    for (int i = 0; i < 8; i++) sqlite3_finalize(s->statements[i]);
}

void *checkpoint_thread(void *argument) {
    checkpointer *c = argument;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(c->path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
        sqlite3_exec(db, "PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 0;", NULL, NULL, NULL);
    }
    pthread_mutex_lock(&c->lock);
    while (!c->stop) {
        if (!c->scheduled) {
            pthread_cond_wait(&c->wake, &c->lock);
            continue;
        }
        c->running = 1;
        pthread_mutex_unlock(&c->lock);
        int log = 0, done = 0;
        int rc = sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
        pthread_mutex_lock(&c->lock);
        if (rc == SQLITE_OK && done > c->checkpointed) c->checkpointed = done;
        c->running = 0;
        c->scheduled = 0;
    }
    pthread_mutex_unlock(&c->lock);
    sqlite3_close(db);
    return NULL;
}

int wal_hook(void *context, sqlite3 *db, const char *name, int frames) {
    (void)db;
    (void)name;
    ((wal_state *)context)->frames = frames;
    return SQLITE_OK;
}

void after_commit(sqlite3 *db, wal_state *wal) {
    checkpointer *c = wal->checkpointer;
    int here = 0;
    pthread_mutex_lock(&c->lock);
    if (wal->frames < c->checkpointed) c->checkpointed = 0;  // the WAL started again from its beginning
    if (wal->frames - c->checkpointed >= CHECKPOINT_THRESHOLD && !c->scheduled) {
        c->scheduled = 1;
        pthread_cond_signal(&c->wake);
    }
    if (wal->frames > 4 * CHECKPOINT_THRESHOLD && !c->running) here = 1;
    pthread_mutex_unlock(&c->lock);
    if (here) {
        int log = 0, done = 0;
        if (sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done) == SQLITE_OK) {
            pthread_mutex_lock(&c->lock);
            c->checkpointed = done;
            pthread_mutex_unlock(&c->lock);
        }
    }
}
