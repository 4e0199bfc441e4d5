// --prometheus: a snapshot in the Prometheus text exposition format
// (version 0.0.4), and the exporter that serves it over HTTP.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "runner/snapshot.h"

namespace xtap::runner {

// A label value as the format wants it: \ " and newline escaped, and bytes
// that are not UTF-8 replaced by U+FFFD (the format's values are UTF-8).
std::string prometheus_label_value(const std::string &s);

// The whole /metrics page of one snapshot. Arrays show at most
// max_series entries each; xtap_global_omitted_entries counts the rest.
std::string prometheus_text(const SnapNames &names, const Snapshot &snap, size_t max_series);

// "ADDR:PORT" (IPv4, or [IPv6]:PORT) -> the listening socket, or -1 and *error.
int prometheus_listen(const std::string &addr_port, std::string *error);

// Serves GET /metrics from a fresh snapshot of the module's debugfs
// directory per scrape, on a thread of its own; after freeze() (the
// session is done) the last snapshot is served instead.
class PrometheusExporter {
 public:
  PrometheusExporter();
  ~PrometheusExporter();
  bool start(const std::string &addr_port, const std::string &module_dir, std::string *error);
  // --monitor-feed instead of /metrics: the raw snapshot files (GET
  // /snapshot_names, GET /snapshot) for a --monitor view on another
  // machine, and POST /stop, which stops the session as SIGTERM does.
  void serve_feed() { feed_ = true; }
  void freeze();  // take the final snapshot; later scrapes serve it
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool feed_ = false;
};

}  // namespace xtap::runner
