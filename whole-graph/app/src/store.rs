//! The application's storage: notes in SQLite, through sqlx's tokio
//! runtime support (its pool's timers and tasks are tokiwa's; SQLite itself
//! runs on a worker thread per connection that sqlx talks to over
//! channels).

use sqlx::sqlite::{SqlitePool, SqlitePoolOptions};

/// A note store in an in-memory SQLite database.
pub struct Notes {
    pool: SqlitePool,
}

impl Notes {
    /// Opens `sqlite::memory:` and creates the table.
    ///
    /// Every connection to `sqlite::memory:` is a database of its own, so
    /// the pool keeps exactly one connection, for good.
    pub async fn open_in_memory() -> sqlx::Result<Notes> {
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect("sqlite::memory:")
            .await?;
        sqlx::query("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            .execute(&pool)
            .await?;
        Ok(Notes { pool })
    }

    /// Adds a note; returns its id.
    pub async fn add(&self, body: &str) -> sqlx::Result<i64> {
        let done = sqlx::query("INSERT INTO notes (body) VALUES (?)")
            .bind(body)
            .execute(&self.pool)
            .await?;
        Ok(done.last_insert_rowid())
    }

    /// Every note, by id.
    pub async fn all(&self) -> sqlx::Result<Vec<(i64, String)>> {
        sqlx::query_as("SELECT id, body FROM notes ORDER BY id")
            .fetch_all(&self.pool)
            .await
    }

    /// The note with `id`, if any.
    pub async fn get(&self, id: i64) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar("SELECT body FROM notes WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
    }

    /// Closes the pool (and its connection's worker thread).
    pub async fn close(self) {
        self.pool.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::on_every_runtime;
    use std::sync::Arc;

    #[test]
    fn create_insert_and_query_back() {
        on_every_runtime("sqlx_sqlite_memory", |_| async move {
            let notes = Notes::open_in_memory().await.unwrap();
            let first = notes.add("buy milk").await.unwrap();
            let second = notes.add("write tests").await.unwrap();
            assert_ne!(first, second);
            assert_eq!(
                notes.get(second).await.unwrap().as_deref(),
                Some("write tests")
            );
            assert_eq!(notes.get(second + 100).await.unwrap(), None);
            assert_eq!(
                notes.all().await.unwrap(),
                vec![
                    (first, "buy milk".to_owned()),
                    (second, "write tests".to_owned())
                ]
            );
            notes.close().await;
        });
    }

    #[test]
    fn tasks_share_the_one_connection() {
        on_every_runtime("sqlx_sqlite_tasks", |_| async move {
            let notes = Arc::new(Notes::open_in_memory().await.unwrap());
            // Eight tasks wait in turn for the pool's single connection.
            let writers: Vec<_> = (0..8)
                .map(|i| {
                    let notes = notes.clone();
                    tokio::spawn(async move { notes.add(&format!("note {i}")).await.unwrap() })
                })
                .collect();
            let mut ids = Vec::new();
            for writer in writers {
                ids.push(writer.await.unwrap());
            }
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), 8, "every insert got its own row");

            let mut bodies: Vec<String> = notes
                .all()
                .await
                .unwrap()
                .into_iter()
                .map(|(_, b)| b)
                .collect();
            bodies.sort();
            let expected: Vec<String> = (0..8).map(|i| format!("note {i}")).collect();
            assert_eq!(bodies, expected);
            Arc::try_unwrap(notes)
                .ok()
                .expect("writers are done")
                .close()
                .await;
        });
    }
}
