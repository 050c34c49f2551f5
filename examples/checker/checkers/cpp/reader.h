// A small stand-in for testlib.h, enough for this checker: the three
// streams a checker reads (inf: the input, ouf: the program's output,
// ans: the answer), reading integers, and quitf with testlib's outcomes
// and exit codes. Like testlib, a read that fails on the output is a
// presentation error, one that fails on the input or the answer a
// failure of the checker.
#pragma once

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

enum Outcome { _ok = 0, _wa = 1, _pe = 2, _fail = 3 };

[[noreturn]] inline void quitf(Outcome how, const char *format, ...) {
    static const char *const prefix[] = {"ok", "wrong answer", "wrong output format", "FAIL"};
    std::fprintf(stderr, "%s ", prefix[how]);
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
    std::fputc('\n', stderr);
    std::exit(how);
}

class InStream {
  public:
    void open(const char *path, Outcome onError, const char *name) {
        f_ = std::fopen(path, "r");
        onError_ = onError;
        name_ = name;
        if (!f_) quitf(_fail, "cannot open the %s", name);
    }
    // readLong reads the next integer, or quits with the stream's outcome.
    long long readLong() {
        long long v;
        if (!next(&v)) quitf(onError_, "the %s ends early, or holds something that is not an integer", name_);
        return v;
    }
    // readLongs reads every integer up to the end of the stream.
    std::vector<long long> readLongs() {
        std::vector<long long> out;
        long long v;
        while (next(&v)) out.push_back(v);
        if (!std::feof(f_)) quitf(onError_, "the %s holds something that is not an integer", name_);
        return out;
    }

  private:
    bool next(long long *v) {
        errno = 0;
        int r = std::fscanf(f_, "%lld", v);
        if (r == 1 && errno == 0) return true;
        if (r == EOF) return false;
        return false;
    }
    std::FILE *f_ = nullptr;
    Outcome onError_ = _fail;
    const char *name_ = "";
};

inline InStream inf, ouf, ans;

inline void registerTestlibCmd(int argc, char **argv) {
    if (argc != 4) quitf(_fail, "usage: %s <input> <output> <answer>", argc > 0 ? argv[0] : "checker");
    inf.open(argv[1], _fail, "input");
    ouf.open(argv[2], _pe, "output");
    ans.open(argv[3], _fail, "answer");
}
