// The autotuner (docs/autotune.md): Kernel::tune and its report.
//
// Built over the public API (compile, launch) plus the runtime's timing:
// configs compile in parallel threads, then each is timed on the GPU with
// CUDA events around single launches, the L2 cache flushed before each, and
// the median kept. Every config is compiled for the GPU's own target, as a
// launch there is. Results live in the autotuning database, one small file
// per (kernel source, signature, key, GPU, target, config), so that a later process
// reuses them without timing and editing one config re-times only that one.
#include "tilec/tilec.h"

#include "runtime/Device.h"
#include "runtime/JIT/Compiler.h"
#include "runtime/JIT/DiskCache.h"
#include "runtime/JIT/LaunchChecks.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <thread>

namespace tilec {

namespace {
/// An exception of a TuneOptions hook, carried past the per-config handler
/// (which turns launch failures into skipped configs) to tune's caller.
struct HookFailed {
  std::exception_ptr error;
};

constexpr const char *kTuneMagic = "tilec-tune 1";

std::string constexprText(const Constexpr &c) {
  if (auto *i = std::get_if<int64_t>(&c.value))
    return std::to_string(*i);
  if (auto *d = std::get_if<double>(&c.value)) {
    std::ostringstream os;
    os.precision(17);
    os << *d;
    return os.str();
  }
  if (auto *b = std::get_if<bool>(&c.value))
    return *b ? "True" : "False";
  return std::get<std::string>(c.value);
}

std::string oneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\t', ' ');
  return s;
}

std::string number(double v, int precision = 4) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

/// Bumped when what a config compiles to, or how it is timed, changes in
/// a way that makes old timings wrong. 2: num_stages pipelines loads
/// through cp.async (before, it was accepted and ignored, so results
/// stored for num_stages=3 timed unpipelined code). 3: the L2 flush reads
/// (a written flush left dirty lines the timed kernel wrote back).
constexpr const char *kTimingGeneration = "3";

/// The database file of one result. The target is part of it: a result
/// timed with code for another target (or that failed to launch because of
/// it) says nothing about this one.
std::string resultName(const std::string &source, const std::string &signature,
                       const std::string &key, const std::string &gpu,
                       const std::string &target, const Config &config, bool debug,
                       bool deterministic) {
  // A debug compile's times (its checks included) are not the kernel's: a
  // line of their own, which no text of the user's key can imitate. A
  // deterministic compile may refuse a config the plain one accepts.
  return jit::digest(source + "\n" + signature + "\n" + key + "\n" + gpu + "\n" +
                     target + "\n" + config.str() + "\n" + kTimingGeneration +
                     (debug ? "\ndebug" : "") + (deterministic ? "\ndeterministic" : "")) +
         ".txt";
}

std::string serialize(const TuneResult &r) {
  std::string t = std::string(kTuneMagic) + "\n";
  t += "config\t" + r.config.str() + "\n";
  t += "ok\t" + std::to_string(r.ok) + "\n";
  if (!r.ok) {
    if (r.droppedForSharedMemory)
      t += "dropped\tshared\nshared\t" + std::to_string(r.sharedBytes) + "\n";
    return t + "error\t" + oneLine(r.error) + "\n";
  }
  t += "median\t" + number(r.medianMs, 9) + "\nmin\t" + number(r.minMs, 9) + "\nmax\t" +
       number(r.maxMs, 9) + "\n";
  t += "registers\t" + std::to_string(r.registers) + "\nshared\t" +
       std::to_string(r.sharedBytes) + "\nspills\t" + std::to_string(r.spillBytes) + "\n";
  return t;
}

/// Fills `r` from a stored result of the same config; false when the text
/// is not one.
bool deserialize(const std::string &text, TuneResult &r) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kTuneMagic)
    return false;
  bool sawConfig = false, sawOk = false;
  while (std::getline(in, line)) {
    size_t tab = line.find('\t');
    if (tab == std::string::npos)
      return false;
    std::string k = line.substr(0, tab), v = line.substr(tab + 1);
    try {
      if (k == "config") sawConfig = v == r.config.str();
      else if (k == "ok") { r.ok = v == "1"; sawOk = true; }
      else if (k == "error") r.error = v;
      else if (k == "dropped") r.droppedForSharedMemory = v == "shared";
      else if (k == "median") r.medianMs = std::stod(v);
      else if (k == "min") r.minMs = std::stod(v);
      else if (k == "max") r.maxMs = std::stod(v);
      else if (k == "registers") r.registers = std::stoi(v);
      else if (k == "shared") r.sharedBytes = std::stoi(v);
      else if (k == "spills") r.spillBytes = std::stoi(v);
    } catch (const std::exception &) {
      return false;
    }
  }
  return sawConfig && sawOk && (!r.ok || r.medianMs > 0);
}

/// Why a config has no time, as reports say it: "dropped: ..." for shared
/// memory, "skipped: ..." for a failed compile or launch.
std::string skipReason(const TuneResult &r) {
  return (r.droppedForSharedMemory ? "" : "skipped: ") + oneLine(r.error);
}

/// Marks `r` dropped: it needs `needed` bytes of shared memory per block,
/// more than the `limit` the GPU (or its target) holds.
void dropForSharedMemory(TuneResult &r, unsigned needed, unsigned limit) {
  r.ok = false;
  r.droppedForSharedMemory = true;
  r.sharedBytes = int(needed);
  r.error = "dropped: needs " + std::to_string(needed) + " bytes of shared memory, the GPU holds " +
            std::to_string(limit) + " per block";
}

void addRates(TuneResult &r, const TuneOptions &o) {
  if (!r.ok || r.medianMs <= 0)
    return;
  if (o.bytes > 0)
    r.gbPerSecond = o.bytes / (r.medianMs * 1e-3) / 1e9;
  if (o.flops > 0)
    r.tflops = o.flops / (r.medianMs * 1e-3) / 1e12;
}

std::string xmlEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') { out += '\\'; out += c; }
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out;
}
} // namespace

std::string Config::str() const {
  std::string s;
  for (const auto &[name, value] : constexprs)
    s += name + "=" + constexprText(value) + ", ";
  return s + "num_warps=" + std::to_string(numWarps) +
         ", num_stages=" + std::to_string(numStages) +
         (maxRegisters ? ", maxnreg=" + std::to_string(maxRegisters) : "");
}

bool TuneReport::reused() const {
  if (results.empty())
    return false;
  for (const TuneResult &r : results)
    if (!r.fromDatabase)
      return false;
  return true;
}

TuneReport Kernel::tune(const std::vector<Config> &configs, const std::vector<Grid> &grids,
                        const std::vector<Arg> &args, const TuneOptions &options) const {
  if (configs.empty())
    throw Error("autotuning '" + name() + "' needs at least one config");
  if (grids.size() != configs.size())
    throw Error("autotuning '" + name() + "': " + std::to_string(configs.size()) +
                " configs but " + std::to_string(grids.size()) + " grids");
  // The checks of a launch, once, before anything is compiled or timed.
  jit::ParamNames names;
  for (const Parameter &p : parameters())
    if (!p.isConstexpr)
      names.push_back(&p.name);
  jit::checkArgumentCount(name(), names, args.size());
  for (const Grid &g : grids)
    jit::checkGrid(name(), g);
  jit::checkPointerArguments(name(), names, args.data(), args.size(), Backend::GPU);
  std::string why;
  if (!cudaAvailable(&why))
    throw Error("cannot autotune kernel '" + name() + "': " + why);

  TuneReport report;
  report.kernel = name();
  report.key = options.key;
  for (size_t i = 0; i < args.size(); ++i)
    report.signature += (i ? "," : "") + args[i].signature();
  // The GPU, and the target its launches compile for, before any compile.
  unsigned deviceSharedBytes = 0;
  try {
    const runtime::Device &device = runtime::Device::current();
    // Memory this GPU cannot reach would fail every config the same way.
    jit::checkDevicePointers(name(), names, args.data(), args.size(), device.ordinal());
    report.gpu = device.name();
    deviceSharedBytes = unsigned(device.maxSharedMemoryPerBlockOptin());
    std::string error;
    std::optional<TargetInfo> target =
        jit::targetForDevice(unsigned(device.computeCapability()), device.name(), error);
    if (!target)
      throw Error("cannot autotune kernel '" + name() + "': " + error);
    report.target = target->chip;
  } catch (const runtime::CudaError &e) {
    throw Error(e.what());
  }
  std::string source = sourceDigest();
  const jit::DiskCache &db = jit::DiskCache::instance();

  report.results.resize(configs.size());
  std::vector<size_t> toTime;
  for (size_t i = 0; i < configs.size(); ++i) {
    TuneResult &r = report.results[i];
    r.config = configs[i];
    std::optional<std::string> stored;
    if (!options.force && options.useDatabase)
      stored = db.readText("tune", resultName(source, report.signature, options.key,
                                              report.gpu, report.target, configs[i],
                                              options.debug, options.deterministic));
    if (stored && deserialize(*stored, r)) {
      r.fromDatabase = true;
      addRates(r, options);
    } else {
      r = TuneResult{};
      r.config = configs[i];
      toTime.push_back(i);
    }
  }
  if (!toTime.empty() && runtime::streamIsCapturing(options.stream))
    throw Error("cannot autotune kernel '" + name() +
                "' while its stream is captured into a CUDA graph: run it once "
                "before the capture (the choice is then reused) or pick a config");

  // Compile what must be timed, in parallel (the disk cache serves most).
  {
    std::atomic<size_t> next{0};
    unsigned workers = std::max(1u, std::min<unsigned>(unsigned(toTime.size()),
                                                       std::thread::hardware_concurrency()));
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers; ++w)
      threads.emplace_back([&] {
        for (size_t k; (k = next++) < toTime.size();) {
          TuneResult &r = report.results[toTime[k]];
          try {
            CompiledKernel c = compile(report.signature, r.config.constexprs,
                                       r.config.numWarps, report.target,
                                       r.config.numStages, r.config.maxRegisters,
                                       options.debug, options.deterministic);
            r.sharedBytes = int(c.sharedBytes());
            // The target's limit can exceed this GPU's (sm_86 runs sm_80 code).
            if (c.sharedBytes() > deviceSharedBytes)
              dropForSharedMemory(r, c.sharedBytes(), deviceSharedBytes);
          } catch (const jit::SharedMemoryExceeded &e) {
            // The allocation pass refused it: LLVM and ptxas never ran.
            dropForSharedMemory(r, e.needed, std::min(e.limit, deviceSharedBytes));
          } catch (const std::exception &e) {
            r.error = std::string("compile failed: ") + e.what();
          }
        }
      });
    for (std::thread &t : threads)
      t.join();
  }

  // Time each config on the GPU.
  size_t done = 0;
  try {
    for (size_t i : toTime) {
      TuneResult &r = report.results[i];
      ++done;
      if (r.error.empty()) {
        try {
          LaunchOptions lo;
          lo.numWarps = r.config.numWarps;
          lo.numStages = r.config.numStages;
          lo.maxRegisters = r.config.maxRegisters;
          lo.debug = options.debug;
          lo.deterministic = options.deterministic;
          lo.stream = options.stream;
          lo.backend = Backend::GPU;
          // A hook's exception ends the tuning (HookFailed passes the
          // per-config handler below).
          auto before = [&] {
            if (!options.beforeLaunch)
              return;
            try {
              options.beforeLaunch(i);
            } catch (...) {
              throw HookFailed{std::current_exception()};
            }
          };
          auto after = [&](const char *error) {
            if (!options.afterLaunch)
              return;
            try {
              options.afterLaunch(i, error);
            } catch (...) {
              throw HookFailed{std::current_exception()};
            }
          };
          // The after-hook sees a launch that failed too, with its error.
          auto launchOnce = [&] {
            try {
              launch(grids[i], args, r.config.constexprs, lo);
            } catch (const std::exception &e) {
              after(e.what());
              throw;
            }
          };
          auto run = [&] {
            before();
            launchOnce();
            after(nullptr);
          };
          run();
          runtime::synchronize(); // a failing launch shows here
          // The compile the launch above loaded (same target): its registers.
          CompiledKernel c = compile(report.signature, r.config.constexprs,
                                     r.config.numWarps, report.target, r.config.numStages,
                                     r.config.maxRegisters, options.debug,
                                     options.deterministic);
          r.registers = c.numRegisters();
          r.spillBytes = c.spillBytes();
          float estimate;
          {
            runtime::EventTimer t(options.stream);
            t.start();
            for (int k = 0; k < 5; ++k)
              run();
            t.stop();
            estimate = std::max(t.elapsedMilliseconds() / 5, 1e-4f);
          }
          int warmups = std::max(1, int(options.warmupMs / estimate));
          int repeats = std::clamp(int(options.repMs / estimate), 5, 1000);
          for (int k = 0; k < warmups; ++k)
            run();
          std::vector<std::unique_ptr<runtime::EventTimer>> timers;
          for (int k = 0; k < repeats; ++k)
            timers.push_back(std::make_unique<runtime::EventTimer>(options.stream));
          for (int k = 0; k < repeats; ++k) {
            // The hook first: what it writes is flushed from L2 too, and
            // the flush keeps the GPU busy while the host reaches start().
            before();
            runtime::flushL2(options.stream);
            timers[k]->start();
            launchOnce();
            timers[k]->stop();
            after(nullptr);
          }
          std::vector<double> ms;
          for (auto &t : timers)
            ms.push_back(t->elapsedMilliseconds());
          std::sort(ms.begin(), ms.end());
          r.medianMs = ms.size() % 2 ? ms[ms.size() / 2]
                                     : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
          r.minMs = ms.front();
          r.maxMs = ms.back();
          r.ok = true;
        } catch (const jit::SharedMemoryExceeded &e) {
          dropForSharedMemory(r, e.needed, e.limit); // refused at load, before any launch
        } catch (const std::exception &e) {
          r.error = std::string("launch failed: ") + e.what();
          try {
            runtime::synchronize();
          } catch (const std::exception &) {
            // A sticky error leaves the context unusable; later configs report it.
          }
        }
      }
      addRates(r, options);
      // A launch failure may belong to this process (a sticky error of an
      // earlier config, the GPU's state): it is reported, never stored.
      bool launchFailed = !r.ok && r.error.rfind("launch failed", 0) == 0;
      if (options.useDatabase && !launchFailed)
        db.writeText("tune", resultName(source, report.signature, options.key, report.gpu,
                                        report.target, r.config, options.debug,
                                        options.deterministic),
                     serialize(r));
      if (options.progress) {
        std::string line = "tilec: tune " + name() + " [" + std::to_string(done) + "/" +
                           std::to_string(toTime.size()) + "] " + r.config.str() + ": ";
        line += r.ok ? number(r.medianMs * 1e3) + " us" : skipReason(r);
        std::fprintf(stderr, "%s\n", line.c_str());
      }
    }
  } catch (const HookFailed &failed) {
    std::rethrow_exception(failed.error);
  }

  for (size_t i = 0; i < report.results.size(); ++i) {
    const TuneResult &r = report.results[i];
    if (r.ok && (report.best < 0 || r.medianMs < report.results[report.best].medianMs))
      report.best = int(i);
  }
  return report;
}

std::string TuneReport::table() const {
  std::ostringstream os;
  os << "autotune " << kernel << " [" << signature << "] on " << gpu
     << (target.empty() ? "" : " (" + target + ")") << (key.empty() ? "" : " for " + key)
     << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-3s %-48s %10s %10s %10s %9s %9s %5s %7s %6s  %s\n", "#",
                "config", "median us", "min us", "max us", "GB/s", "TFLOP/s", "regs",
                "shared", "spill", "status");
  os << line;
  for (size_t i = 0; i < results.size(); ++i) {
    const TuneResult &r = results[i];
    std::string status = !r.ok            ? skipReason(r).substr(0, 89)
                         : int(i) == best ? "best"
                                          : "";
    if (r.fromDatabase)
      status += status.empty() ? "(database)" : " (database)";
    auto cell = [&](double v, bool show) { return show ? number(v) : std::string("-"); };
    std::snprintf(line, sizeof line, "%-3zu %-48s %10s %10s %10s %9s %9s %5s %7d %6s  %s\n", i,
                  r.config.str().c_str(), cell(r.medianMs * 1e3, r.ok).c_str(),
                  cell(r.minMs * 1e3, r.ok).c_str(), cell(r.maxMs * 1e3, r.ok).c_str(),
                  cell(r.gbPerSecond, r.gbPerSecond > 0).c_str(),
                  cell(r.tflops, r.tflops > 0).c_str(),
                  r.registers >= 0 ? std::to_string(r.registers).c_str() : "-",
                  r.sharedBytes, r.spillBytes >= 0 ? std::to_string(r.spillBytes).c_str() : "-",
                  status.c_str());
    os << line;
  }
  return os.str();
}

std::string TuneReport::csv() const {
  std::ostringstream os;
  os << "index,config,ok,median_ms,min_ms,max_ms,gb_per_s,tflops,registers,shared_bytes,"
        "spill_bytes,from_database,best,dropped_for_shared_memory,error\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const TuneResult &r = results[i];
    std::string error = oneLine(r.error);
    std::replace(error.begin(), error.end(), '"', '\'');
    os << i << ",\"" << r.config.str() << "\"," << r.ok << "," << number(r.medianMs, 6) << ","
       << number(r.minMs, 6) << "," << number(r.maxMs, 6) << "," << number(r.gbPerSecond, 6)
       << "," << number(r.tflops, 6) << "," << r.registers << "," << r.sharedBytes << ","
       << r.spillBytes << "," << r.fromDatabase << "," << (int(i) == best) << ","
       << r.droppedForSharedMemory << ",\"" << error
       << "\"\n";
  }
  return os.str();
}

std::string TuneReport::json() const {
  std::ostringstream os;
  os << "{\n  \"kernel\": \"" << jsonEscape(kernel) << "\",\n  \"gpu\": \"" << jsonEscape(gpu)
     << "\",\n  \"target\": \"" << jsonEscape(target) << "\",\n  \"key\": \"" << jsonEscape(key) << "\",\n  \"signature\": \""
     << jsonEscape(signature) << "\",\n  \"best\": " << best << ",\n  \"results\": [\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const TuneResult &r = results[i];
    os << "    {\"config\": \"" << jsonEscape(r.config.str()) << "\", \"constexprs\": {";
    bool first = true;
    for (const auto &[name, value] : r.config.constexprs) {
      os << (first ? "" : ", ") << "\"" << jsonEscape(name) << "\": ";
      if (std::holds_alternative<std::string>(value.value))
        os << "\"" << jsonEscape(constexprText(value)) << "\"";
      else if (auto *b = std::get_if<bool>(&value.value))
        os << (*b ? "true" : "false");
      else
        os << constexprText(value);
      first = false;
    }
    os << "}, \"num_warps\": " << r.config.numWarps << ", \"num_stages\": "
       << r.config.numStages << ", \"maxnreg\": " << r.config.maxRegisters << ", \"ok\": " << (r.ok ? "true" : "false")
       << ", \"median_ms\": " << number(r.medianMs, 9) << ", \"min_ms\": "
       << number(r.minMs, 9) << ", \"max_ms\": " << number(r.maxMs, 9)
       << ", \"gb_per_s\": " << number(r.gbPerSecond, 6) << ", \"tflops\": "
       << number(r.tflops, 6) << ", \"registers\": " << r.registers
       << ", \"shared_bytes\": " << r.sharedBytes << ", \"spill_bytes\": " << r.spillBytes
       << ", \"from_database\": " << (r.fromDatabase ? "true" : "false")
       << ", \"dropped_for_shared_memory\": " << (r.droppedForSharedMemory ? "true" : "false")
       << ", \"error\": \"" << jsonEscape(r.error) << "\"}"
       << (i + 1 < results.size() ? "," : "") << "\n";
  }
  os << "  ]\n}\n";
  return os.str();
}

std::string TuneReport::svg() const {
  // Horizontal bars, one per config, scaled to the slowest.
  const int rowHeight = 22, labelWidth = 420, barWidth = 420, top = 40;
  double slowest = 0;
  for (const TuneResult &r : results)
    if (r.ok)
      slowest = std::max(slowest, r.medianMs);
  int height = top + int(results.size()) * rowHeight + 30;
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << labelWidth + barWidth + 120
     << "\" height=\"" << height << "\" font-family=\"monospace\" font-size=\"12\">\n";
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << "<text x=\"8\" y=\"18\" font-size=\"14\">" << xmlEscape(kernel + " [" + signature +
                                                                "] on " + gpu)
     << (key.empty() ? "" : xmlEscape(" for " + key))
     << ": median time per config (us, L2 flushed)</text>\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const TuneResult &r = results[i];
    int y = top + int(i) * rowHeight;
    os << "<text x=\"8\" y=\"" << y + 15 << "\">" << xmlEscape(r.config.str()) << "</text>\n";
    if (!r.ok) {
      os << "<text x=\"" << labelWidth << "\" y=\"" << y + 15
         << "\" fill=\"#b00\">" << xmlEscape(skipReason(r).substr(0, 69))
         << "</text>\n";
      continue;
    }
    int w = slowest > 0 ? std::max(1, int(barWidth * r.medianMs / slowest)) : 1;
    os << "<rect x=\"" << labelWidth << "\" y=\"" << y + 3 << "\" width=\"" << w
       << "\" height=\"" << rowHeight - 6 << "\" fill=\""
       << (int(i) == best ? "#2a7" : "#58a") << "\"/>\n";
    os << "<text x=\"" << labelWidth + w + 6 << "\" y=\"" << y + 15 << "\">"
       << number(r.medianMs * 1e3) << (r.gbPerSecond > 0 ? " (" + number(r.gbPerSecond) + " GB/s)" : "")
       << (int(i) == best ? " best" : "") << "</text>\n";
  }
  os << "</svg>\n";
  return os.str();
}

} // namespace tilec
