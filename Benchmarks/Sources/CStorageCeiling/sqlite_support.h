#ifndef SQLITE_SUPPORT_H
#define SQLITE_SUPPORT_H

// What storage_ceiling.c writes with, as our SQLite store has it: multi-row statements (SQLiteRowStatement) and
// background checkpoints of the WAL (WALCheckpointer).

#include <pthread.h>
#include <sqlite3.h>

#define CHECKPOINT_THRESHOLD 4096

// One multi-row statement: `head` + `row`, `row`, … + `tail`, prepared for 2^k rows (k ≤ 6: 64 rows) on first use.
typedef struct {
    sqlite3 *db;
    const char *head, *row, *tail;
    int columns;
    sqlite3_stmt *statements[8];
} row_statement;

// Binds row `index`'s values from parameter `first` on.
typedef int (*bind_row)(sqlite3_stmt *statement, int first, int index, void *context);

void row_statement_init(row_statement *s, sqlite3 *db, const char *head, const char *row, const char *tail);
// Writes `count` rows: chunks of 64, then the powers of two of what is left, as SQLiteRowStatement does.
int row_statement_run(row_statement *s, int count, bind_row bind, void *context);
void row_statement_finalize(row_statement *s);

// The background checkpoint's state, shared by the writer and the checkpoint thread under `lock`.
typedef struct {
    const char *path;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int scheduled, running, stop;
    int checkpointed;  // frames in the database file after the last checkpoint
} checkpointer;

// The writer's WAL, as its wal hook reported it after the last commit.
typedef struct {
    checkpointer *checkpointer;
    int frames;
} wal_state;

// The checkpoint thread (argument: a checkpointer): a PASSIVE checkpoint on a connection of its own when scheduled.
void *checkpoint_thread(void *argument);
// The wal hook of the writer's connection (context: a wal_state).
int wal_hook(void *context, sqlite3 *db, const char *name, int frames);
// After a commit: schedule a background checkpoint once the WAL grew by the threshold; past four times it,
// checkpoint on the writer's own connection (what WALCheckpointer's `checkpointHere` does).
void after_commit(sqlite3 *db, wal_state *wal);

#endif
