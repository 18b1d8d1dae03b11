//! Cursor pagination of the list endpoints: `order` (default `desc`), an exclusive `after`
//! cursor, `limit` within the endpoint's range, `has_more`, `first_id`/`last_id`.

use super::{Answer, ApiErr};
use axum::response::IntoResponse;
use axum::Json;
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, Default, Deserialize)]
pub(super) struct ListQuery {
    pub(super) after: Option<String>,
    pub(super) limit: Option<String>,
    pub(super) order: Option<String>,
    pub(super) purpose: Option<String>,
    pub(super) name: Option<String>,
}

/// One cursor page of `items` (given oldest first): `order` (default `desc`), `after` exclusive,
/// `limit` within `1..=max`.
pub(super) fn paginate<T: serde::Serialize>(
    mut items: Vec<T>,
    id: impl Fn(&T) -> &str,
    q: &ListQuery,
    default_limit: usize,
    max_limit: usize,
) -> Answer {
    let limit = match &q.limit {
        None => default_limit,
        Some(s) => match s.parse::<usize>() {
            Ok(n) if (1..=max_limit).contains(&n) => n,
            _ => {
                return Err(ApiErr::invalid(
                    "limit",
                    format!(
                    "Invalid 'limit': expected an integer between 1 and {max_limit}, got '{s}'."
                ),
                ))
            }
        },
    };
    match q.order.as_deref() {
        None | Some("desc") => items.reverse(),
        Some("asc") => {}
        Some(o) => {
            return Err(ApiErr::invalid(
                "order",
                format!("Invalid 'order': expected 'asc' or 'desc', got '{o}'."),
            ))
        }
    }
    let start = match &q.after {
        None => 0,
        // An unknown cursor (e.g. deleted meanwhile) yields an empty page, never an error loop.
        Some(after) => items
            .iter()
            .position(|t| id(t) == after)
            .map(|p| p + 1)
            .unwrap_or(items.len()),
    };
    let rest: Vec<T> = items.into_iter().skip(start).collect();
    let has_more = rest.len() > limit;
    let data: Vec<T> = rest.into_iter().take(limit).collect();
    let first_id = data.first().map(|t| id(t).to_string());
    let last_id = data.last().map(|t| id(t).to_string());
    Ok(Json(json!({
        "object": "list", "data": data, "first_id": first_id, "last_id": last_id, "has_more": has_more,
    }))
    .into_response())
}
