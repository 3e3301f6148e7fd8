// omgdb transports — newline-delimited input, shared by the stdio server and the --via bridge.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace omgdb::transports {

// Reads `fd` until end of input (or a read error) and splits it into lines at '\n' (not passed
// on). `on_line` gets each complete line, and the last one when input ends without '\n' (if it
// is not empty); it may move from the string. A line longer than `max_line_bytes` is skipped to
// its end and `on_too_long` is called once for it instead, with the line's first bytes (at
// least `max_line_bytes` of them; a request's id often lies there). `on_read_done` (optional) is called
// after the lines of each read(2) have been passed on, before the next read may block.
void read_lines(int fd, std::size_t max_line_bytes, const std::function<void(std::string&)>& on_line,
                const std::function<void(std::string_view prefix)>& on_too_long,
                const std::function<void()>& on_read_done = {});

}  // namespace omgdb::transports
