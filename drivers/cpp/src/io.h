// Small fd and threading helpers shared by the pipe modes of every library.
#pragma once

#include <semaphore.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "common.h"

namespace wb {

// Writes everything or throws Failure.
void writeAll(int fd, const void* data, size_t size);

// Reads exactly `size` bytes. Returns false on end of file before the first byte (a clean
// end at a message boundary); throws Failure on an error or on end of file after a partial
// read (`what` names the thing that was cut short).
bool readExact(int fd, void* data, size_t size, const char* what);

// Expectations from the sending thread to the receiving thread of pipe-async, in order.
template <typename T>
class ExpectationQueue {
 public:
  ExpectationQueue() { sem_init(&ready_, 0, 0); }
  ~ExpectationQueue() { sem_destroy(&ready_); }
  ExpectationQueue(const ExpectationQueue&) = delete;
  ExpectationQueue& operator=(const ExpectationQueue&) = delete;

  void post(T value) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.push_back(value);
    }
    sem_post(&ready_);
  }

  T take() {
    while (sem_wait(&ready_) != 0) {
    }
    std::lock_guard<std::mutex> lock(mutex_);
    T value = items_.front();
    items_.pop_front();
    return value;
  }

 private:
  sem_t ready_;
  std::mutex mutex_;
  std::deque<T> items_;
};

// Runs `send` on the calling thread and `receive` on a second one. A failure on either side
// cannot be unwound safely (the other side may be blocked on the pipe), so it ends the
// process with exit status 1 after saying why.
std::string describeCurrentException();  // call inside a catch block
[[noreturn]] void reportAndExit(const char* side);

template <typename Send, typename Receive>
void runSenderReceiver(Send&& send, Receive&& receive) {
  std::thread receiver([&receive] {
    try {
      receive();
    } catch (...) {
      reportAndExit("pipe-async receiver");
    }
  });
  try {
    send();
  } catch (...) {
    reportAndExit("pipe-async sender");
  }
  receiver.join();
}

}  // namespace wb
