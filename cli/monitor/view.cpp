// --monitor's ncurses page (view.h).
#include "monitor/view.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include <ncurses.h>

#include "monitor/model.h"

namespace xtap::monitor {

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kKeptLines = 1000;  // the pane's scroll-back
constexpr size_t kTopEntries = 5;    // per array

double seconds(Clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

}  // namespace

std::optional<double> parse_interval(const std::string &s) {
  if (s.empty()) return 1.0;
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (*end || !(v >= 0.1 && v <= 3600)) return std::nullopt;
  return v;
}

struct View::Impl {
  ViewOptions opt;
  Source src;
  int in_fd = -1;
  FILE *in_fp = nullptr, *out_fp = nullptr;
  SCREEN *screen = nullptr;
  int wake[2] = {-1, -1};
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<bool> on_screen{false};

  std::mutex mu;  // guards the output below (add_output from other threads)
  std::deque<std::string> lines;
  std::string partial;

  std::optional<Model> model;
  std::string status = "waiting for the session";
  SortKey sort = SortKey::Hits;
  bool paused = false;
  size_t scroll = 0;  // lines back from the newest
  int pane_rows = 0;

  void append(const std::string &text);
  void fetch();
  bool key(int ch);  // false: quit
  void draw();
  int draw_probes(int row, int rows);
  int draw_globals(int row, int rows);
  void draw_output(int row, int rows);
  void loop();
  void leave();
  std::string tail(size_t keep);
};

void View::Impl::append(const std::string &text) {
  std::lock_guard<std::mutex> lock(mu);
  partial += text;
  size_t nl;
  while ((nl = partial.find('\n')) != std::string::npos) {
    lines.push_back(partial.substr(0, nl));
    partial.erase(0, nl + 1);
    if (lines.size() > kKeptLines) lines.pop_front();
  }
}

void View::Impl::fetch() {
  std::string err;
  if (!model) {
    auto names = src.names(&err);
    if (!names) {
      status = err.empty() ? "waiting for the session" : err;
      return;
    }
    model.emplace(*names);
  }
  auto snap = src.snapshot(model->names(), &err);
  if (!snap) {
    status = err;
    return;
  }
  static const char *states[] = {"loaded", "starting", "running", "stopping", "ending", "done"};
  status = snap->state < 6 ? states[snap->state] : "?";
  model->update(*snap, seconds(Clock::now()));
}

bool View::Impl::key(int ch) {
  switch (ch) {
    case 'q':
    case 'Q': return false;
    case 's':
    case 'S': sort = next_sort_key(sort); break;
    case 'p':
    case 'P':
    case ' ': paused = !paused; break;
    case 'r':
    case 'R':
      if (model) model->reset();
      break;
    case KEY_PPAGE:
    case KEY_UP: scroll += ch == KEY_UP ? 1 : size_t(std::max(pane_rows - 1, 1)); break;
    case KEY_NPAGE:
    case KEY_DOWN: {
      size_t by = ch == KEY_DOWN ? 1 : size_t(std::max(pane_rows - 1, 1));
      scroll = scroll > by ? scroll - by : 0;
      break;
    }
    default: break;
  }
  return true;
}

// A bar across the screen in reverse video.
static void bar(int row, const std::string &text) {
  attron(A_REVERSE);
  mvhline(row, 0, ' ', COLS);
  mvaddnstr(row, 0, text.c_str(), COLS);
  attroff(A_REVERSE);
}

static void line(int row, const std::string &text) { mvaddnstr(row, 0, text.c_str(), COLS); }

int View::Impl::draw_probes(int row, int rows) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%9s %9s %9s %9s  %s", "hits", "hits/s", "avg cyc", "max cyc",
                "probe");
  bar(row++, buf);
  if (!model || !model->timed()) {
    line(row++, "  per-probe hits and handler times need -t (xtap --monitor compiles them in)");
    return row;
  }
  auto probes = model->probes(sort);
  for (size_t i = 0; i < probes.size() && i < size_t(std::max(rows - 1, 1)); i++) {
    const auto &p = probes[i];
    std::snprintf(buf, sizeof(buf), "%9s %9.1f %9s %9s  %s", short_count(p.hits).c_str(), p.rate,
                  short_count(p.avg).c_str(), short_count(p.max).c_str(), p.point.c_str());
    line(row++, buf);
  }
  return row;
}

int View::Impl::draw_globals(int row, int rows) {
  bar(row++, " globals");
  if (!model) return row;
  auto g = model->globals(kTopEntries);
  for (size_t i = 0; i < g.size() && i < size_t(std::max(rows - 1, 1)); i++)
    line(row++, "  " + g[i]);
  return row;
}

void View::Impl::draw_output(int row, int rows) {
  bar(row++, " output" + std::string(scroll ? " (scrolled back: PgDn)" : " (PgUp/PgDn scroll)"));
  pane_rows = std::max(rows - 1, 0);  // a terminal too small for the pane
  if (!opt.output_note.empty()) {
    line(row, "  " + opt.output_note);
    return;
  }
  std::lock_guard<std::mutex> lock(mu);
  size_t n = lines.size();
  size_t max_scroll = n > size_t(pane_rows) ? n - size_t(pane_rows) : 0;
  if (scroll > max_scroll) scroll = max_scroll;
  size_t end = n - scroll;
  size_t begin = end > size_t(pane_rows) ? end - size_t(pane_rows) : 0;
  for (size_t i = begin; i < end; i++) line(row++, lines[i]);
}

void View::Impl::draw() {
  erase();
  char buf[512];
  std::snprintf(buf, sizeof(buf), " xtap monitor: %s  [%s]  every %gs  sort: %s%s",
                opt.title.c_str(), status.c_str(), opt.interval_s, sort_key_name(sort),
                paused ? "  PAUSED" : "");
  bar(0, buf);
  Totals t = model ? model->totals() : Totals{};
  std::snprintf(buf, sizeof(buf),
                " hits %s (%.1f/s)  skipped %s (reentrant %s, lock %s)  lost %s records  "
                "errors %s  warnings %s",
                short_count(t.hits).c_str(), t.rate, short_count(t.skipped).c_str(),
                short_count(t.skipped_reentrant).c_str(), short_count(t.skipped_lock).c_str(),
                short_count(t.lost_records).c_str(), short_count(t.errors).c_str(),
                short_count(t.warnings).c_str());
  line(1, buf);
  int avail = LINES - 3;  // the two lines above and the keys at the bottom
  int row = draw_probes(2, avail / 3);
  row = draw_globals(row, avail / 3);
  draw_output(row, LINES - 1 - row);
  bar(LINES - 1, " s sort  p pause  r reset  PgUp/PgDn scroll  q quit");
  refresh();
}

void View::Impl::loop() {
  auto next = Clock::now();
  auto every =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.interval_s));
  while (!stopping) {
    if (!paused && Clock::now() >= next) {
      fetch();
      next = Clock::now() + every;
    }
    if (!paused) draw();
    int wait =
        int(std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count());
    pollfd p[3] = {{in_fd, POLLIN, 0}, {wake[0], POLLIN, 0}, {opt.output_fd, POLLIN, 0}};
    int np = opt.output_fd >= 0 ? 3 : 2;
    if (poll(p, nfds_t(np), paused ? 1000 : std::max(wait, 0) + 1) < 0) continue;
    if (p[1].revents) {
      char drain[64];
      while (::read(wake[0], drain, sizeof(drain)) > 0) {
      }
    }
    if (np == 3 && p[2].revents) {
      char buf[4096];
      ssize_t n = ::read(opt.output_fd, buf, sizeof(buf));
      if (n > 0) append(std::string(buf, size_t(n)));
    }
    if (p[0].revents) {
      int ch;
      while ((ch = getch()) != ERR) {
        if (key(ch)) continue;
        leave();
        if (src.quit) src.quit();
        return;
      }
      if (paused) draw();  // show that the key was taken
    }
  }
}

// Back to the plain terminal, leaving the pane's last screenful on it
// (what the person was watching); output from then on is printed after it.
void View::Impl::leave() {
  if (!on_screen.exchange(false)) return;
  endwin();
  std::string last = tail(size_t(std::max(pane_rows, 1)));
  std::fwrite(last.data(), 1, last.size(), out_fp);
  std::fflush(out_fp);
  delscreen(screen);
  screen = nullptr;
}

std::string View::Impl::tail(size_t keep) {
  std::lock_guard<std::mutex> lock(mu);
  size_t begin = lines.size() > keep ? lines.size() - keep : 0;
  std::string out;
  for (size_t i = begin; i < lines.size(); i++) out += lines[i] + "\n";
  out += partial;
  lines.clear();
  partial.clear();
  return out;
}

View::View() : impl_(new Impl) {}
View::~View() { stop(); }

bool View::start(int in_fd, int out_fd, const ViewOptions &opt, Source src, std::string *error) {
  Impl &m = *impl_;
  m.opt = opt;
  m.src = std::move(src);
  m.in_fd = in_fd;
  int in_copy = dup(in_fd), out_copy = dup(out_fd);
  m.in_fp = in_copy >= 0 ? fdopen(in_copy, "r") : nullptr;
  m.out_fp = out_copy >= 0 ? fdopen(out_copy, "w") : nullptr;
  // A copy no FILE took is closed here; the others go with their FILE.
  if (!m.in_fp && in_copy >= 0) ::close(in_copy);
  if (!m.out_fp && out_copy >= 0) ::close(out_copy);
  if (m.in_fp && m.out_fp) m.screen = newterm(nullptr, m.out_fp, m.in_fp);
  if (!m.screen || pipe2(m.wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    const char *term = std::getenv("TERM");
    *error = std::string("--monitor: cannot drive the terminal (TERM=") + (term ? term : "") + ")";
    if (m.screen) endwin(), delscreen(m.screen), m.screen = nullptr;
    for (FILE **f : {&m.in_fp, &m.out_fp})
      if (*f) std::fclose(*f), *f = nullptr;
    return false;
  }
  set_term(m.screen);
  cbreak();
  noecho();
  nodelay(stdscr, TRUE);
  keypad(stdscr, TRUE);
  curs_set(0);
  m.on_screen = true;
  m.thread = std::thread([this] { impl_->loop(); });
  return true;
}

bool View::add_output(const std::string &text) {
  if (!impl_->on_screen) return false;
  impl_->append(text);
  (void)!::write(impl_->wake[1], "o", 1);
  return true;
}

std::string View::stop() {
  Impl &m = *impl_;
  if (!m.thread.joinable()) return "";
  m.stopping = true;
  (void)!::write(m.wake[1], "x", 1);
  m.thread.join();
  m.leave();
  // What came through the pipe after the thread's last read.
  if (m.opt.output_fd >= 0) {
    int fl = fcntl(m.opt.output_fd, F_GETFL);
    fcntl(m.opt.output_fd, F_SETFL, fl | O_NONBLOCK);
    char buf[4096];
    ssize_t n;
    while ((n = ::read(m.opt.output_fd, buf, sizeof(buf))) > 0)
      m.append(std::string(buf, size_t(n)));
  }
  std::string out = m.tail(kKeptLines);
  for (FILE **f : {&m.in_fp, &m.out_fp})
    if (*f) std::fclose(*f), *f = nullptr;
  for (int *fd : {&m.wake[0], &m.wake[1]})
    if (*fd >= 0) ::close(*fd), *fd = -1;
  return out;
}

}  // namespace xtap::monitor
