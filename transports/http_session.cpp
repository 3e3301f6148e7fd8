#include "transports/http_session.hpp"

#include <algorithm>

#include "common/json.hpp"
#include "transports/http_rules.hpp"

namespace omgdb::transports::http {

void event_log::append(sse_event e) {
  bytes_ += e.data.size() + e.stream.size();
  events_.push_back(std::move(e));
  while (!events_.empty() && (events_.size() > max_events_ || bytes_ > max_bytes_)) {
    bytes_ -= events_.front().data.size() + events_.front().stream.size();
    events_.pop_front();
  }
}

std::optional<std::string> event_log::stream_of(std::uint64_t id) const {
  auto it = std::lower_bound(events_.begin(), events_.end(), id,
                             [](const sse_event& e, std::uint64_t v) { return e.id < v; });
  if (it == events_.end() || it->id != id) return std::nullopt;
  return it->stream;
}

std::vector<const sse_event*> event_log::after(std::string_view stream, std::uint64_t id) const {
  std::vector<const sse_event*> out;
  auto it = std::upper_bound(events_.begin(), events_.end(), id,
                             [](std::uint64_t v, const sse_event& e) { return v < e.id; });
  for (; it != events_.end(); ++it) {
    if (it->stream == stream) out.push_back(&*it);
  }
  return out;
}

void outlet::push(std::string text) {
  out_bytes += text.size();
  out.push_back(std::move(text));
  if (wake) wake();
}

void outlet::finish() {
  finished = true;
  if (wake) wake();
}

http_session::http_session(std::string id, const session_limits& limits, std::uint64_t first_event_id)
    : id_(std::move(id)), limits_(limits), log_(limits.log_events, limits.log_bytes), next_event_(first_event_id) {}

std::shared_ptr<outlet> http_session::open_request(const std::string& key, bool accepts_sse, bool sse_only) {
  if (pending_.count(key)) return nullptr;
  auto o = std::make_shared<outlet>();
  o->accepts_sse = accepts_sse;
  o->stream = key;
  if (sse_only) o->mode = outlet::kind::sse;
  pending_.emplace(key, o);
  return o;
}

void http_session::cancelled(const std::string& key) {
  auto it = pending_.find(key);
  if (it == pending_.end()) return;
  auto o = it->second;
  pending_.erase(it);
  o->finish();
}

std::shared_ptr<outlet> http_session::open_stream(std::optional<std::uint64_t> last_id) {
  if (!last_id && get_) return nullptr;
  auto o = std::make_shared<outlet>();
  o->mode = outlet::kind::sse;
  o->accepts_sse = true;
  std::string stream;
  if (last_id) {
    if (auto s = log_.stream_of(*last_id)) stream = *s;
  }
  o->stream = stream;
  std::uint64_t after = last_id.value_or(next_event_);
  if (last_id) {
    for (const sse_event* e : log_.after(stream, after)) o->push(sse_frame(e->id, e->data));
  }
  if (stream.empty()) {
    if (get_) {  // a resumption takes over the stream it resumes
      get_->gone = true;
      get_->finish();
    }
    get_ = o;
    return o;
  }
  // Resuming a request's POST stream: carry the rest of it, or end after the replay.
  auto it = pending_.find(stream);
  if (it != pending_.end() && it->second->mode == outlet::kind::sse) {
    it->second->gone = true;
    it->second->finish();
    it->second = o;
  } else {
    o->finish();
  }
  return o;
}

void http_session::release(const std::shared_ptr<outlet>& o, bool dropped) {
  o->wake = nullptr;
  if (dropped) o->gone = true;
  if (o == get_) get_.reset();
  auto it = pending_.find(o->stream);
  if (dropped && cancel_on_drop) {  // 2026-07-28: closing is cancelling
    if (it != pending_.end() && it->second == o) pending_.erase(it);
    if (mcp_) mcp_->cancel_request(o->stream);  // the client is gone from this request
    return;
  }
  if (it == pending_.end() || it->second != o) return;
  if (!dropped) {
    pending_.erase(it);
  } else if (o->mode == outlet::kind::undecided && mcp_) {
    // The client went away before any message of its request: it holds no event id to resume
    // from, so nobody can receive the answer. The call is cancelled (its loop stops at its next
    // poll) instead of holding a worker to the end. A request whose SSE stream started stays:
    // a GET with Last-Event-ID may resume it (it is still bounded by the call deadline).
    pending_.erase(it);
    mcp_->cancel_request(o->stream);
  }
}

void http_session::emit(outlet& o, std::string_view stream, std::string message, bool response) {
  std::uint64_t id = next_event_++;
  if (!o.gone) {
    if (o.out_bytes > limits_.max_buffered_bytes) {
      o.gone = true;  // the reader is too slow; it can resume from the log
      o.finish();
    } else {
      o.push(sse_frame(id, message));
    }
  }
  log_.append(sse_event{id, std::string(stream), std::move(message), response});
}

void http_session::to_get_stream(std::string message, bool response) {
  if (get_) {
    emit(*get_, "", std::move(message), response);
  } else {
    log_.append(sse_event{next_event_++, "", std::move(message), response});
  }
}

void http_session::dispatch(mcp::outgoing m) {
  if (m.kind == mcp::message_kind::abandoned) return cancelled(m.related);
  const bool response = m.kind == mcp::message_kind::response;
  const std::string& related = m.related;
  std::string& message = m.text;
  if (!related.empty()) {
    auto it = pending_.find(related);
    if (it != pending_.end()) {
      auto o = it->second;
      if (o->mode == outlet::kind::undecided) {
        if (response) {
          o->mode = outlet::kind::json;
          pending_.erase(it);
          o->push(std::move(message));
          o->finish();
          return;
        }
        if (!o->accepts_sse) return to_get_stream(std::move(message), false);
        o->mode = outlet::kind::sse;
      }
      emit(*o, related, std::move(message), response);
      if (response) {
        pending_.erase(it);
        o->finish();
      }
      return;
    }
    if (response) return;  // cancelled, or its POST is gone without a stream to resume
  }
  to_get_stream(std::move(message), response);
}

void http_session::end_get_stream() {
  if (get_) get_->finish();
}

void http_session::end_all(std::string_view reason) {
  while (!pending_.empty()) {
    // Each open POST gets an error response in place of the one it will never receive.
    std::string key = pending_.begin()->first;
    std::string message;
    message += R"({"jsonrpc":"2.0","id":)";
    message += key;
    message += R"(,"error":{"code":-32000,"message":)";
    json::append_quoted(message, reason);
    message += "}}";
    dispatch(mcp::outgoing{mcp::message_kind::response, std::move(message), key});
    pending_.erase(key);
  }
  end_get_stream();
}

}  // namespace omgdb::transports::http
