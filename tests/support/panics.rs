//! Keeps the output readable when tests panic on purpose.
use std::panic;
use std::sync::{Mutex, Once};

static EXPECTED: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
static INSTALL: Once = Once::new();

/// Silences panics whose message starts with one of `messages` (the ones a
/// test provokes on purpose); every other panic is reported as usual. The
/// hook is process-wide, so pick messages no real failure would print.
pub fn quiet_panics(messages: &[&'static str]) {
    EXPECTED.lock().unwrap().extend_from_slice(messages);
    INSTALL.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let msg = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            let expected = msg.is_some_and(|m| {
                EXPECTED
                    .lock()
                    .map(|list| list.iter().any(|prefix| m.starts_with(prefix)))
                    .unwrap_or(false)
            });
            if !expected {
                default(info);
            }
        }));
    });
}
