// tokendash's Objective-C provider host: runs the customer's class as the SDK would.
//
// The Swift host's twin (HostPrograms/main.swift says why it is built so), speaking the same
// JSON-lines protocol (README, "Your own provider"): one instance of the class for the whole run,
// each request line a `fetchTokenWithContext:completion:` call on a worker's thread, each
// completion and each return a line back. C and pthreads for everything of its own, not
// Foundation: Foundation's locks would order the class's threads for ThreadSanitizer, which then
// misses the race the class has on a phone. Foundation is touched only to make the context and to
// read what the completion was given.
//
// Built with the class's files by HostBuilder: `-DTOKENDASH_CONSUMER` for a consumer class (the
// driver's otherwise), `-DTOKENDASH_PROVIDER_CLASS="Name"` for its class. CI builds it as it
// stands, against the stub
// class in Tests/EndToEndTests/Fixtures/TokendashStubProvider.m. SwiftPM embeds it
// (`.embedInCode`).
#import <Foundation/Foundation.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TOKENDASH_PROVIDER_CLASS
#define TOKENDASH_PROVIDER_CLASS "TokendashStubProvider"
#endif

// The SDK's context, which only the SDK makes ("This class has no public initializers"): its
// implementation is the host's, with an initialiser of its own.
#if TOKENDASH_CONSUMER
#import <GoogleRidesharingConsumer/GoogleRidesharingConsumer.h>
#define TOKENDASH_PROTOCOL GMTCAuthorization
typedef GMTCAuthorizationContext TokendashContext;
@interface GMTCAuthorizationContext ()
- (instancetype)initWithTokendashID:(NSString *)ID task:(nullable NSString *)task;
@end
@implementation GMTCAuthorizationContext
- (instancetype)init {
  [self doesNotRecognizeSelector:_cmd];
  return nil;
}
@synthesize tripID = _tripID;
- (instancetype)initWithTokendashID:(NSString *)ID task:(nullable NSString *)task {
  if ((self = [super init])) {
    _tripID = [ID copy];
  }
  return self;
}
@end
#else
#import <GoogleRidesharingDriver/GoogleRidesharingDriver.h>
#define TOKENDASH_PROTOCOL GMTDAuthorization
typedef GMTDAuthorizationContext TokendashContext;
@interface GMTDAuthorizationContext ()
- (instancetype)initWithTokendashID:(NSString *)ID task:(nullable NSString *)task;
@end
@implementation GMTDAuthorizationContext
- (instancetype)init {
  [self doesNotRecognizeSelector:_cmd];
  return nil;
}
@synthesize vehicleID = _vehicleID;
@synthesize taskID = _taskID;
- (instancetype)initWithTokendashID:(NSString *)ID task:(nullable NSString *)task {
  if ((self = [super init])) {
    _vehicleID = [ID copy];
    _taskID = [task copy];
  }
  return self;
}
@end
#endif

/// The messages go out on descriptor 4 and the requests come in on 3, descriptors of the
/// protocol's own: the class's stdin is /dev/null and its stdout and stderr are its prints, so
/// nothing it reads is a request and nothing it prints can pass for a message.
static const int requests = 3;
static const int channel = 4;
/// Orders whole lines. The thread reading requests never takes it.
static pthread_mutex_t channelLock = PTHREAD_MUTEX_INITIALIZER;
static id<TOKENDASH_PROTOCOL> provider;

/// One line out, gathered in a buffer of its own and written with one write.
typedef struct {
  char *bytes;
  size_t count;
  size_t capacity;
} Line;

static void line_append(Line *line, const char *bytes, size_t length) {
  if (line->count + length > line->capacity) {
    size_t capacity = line->capacity * 2 > line->count + length ? line->capacity * 2 : line->count + length;
    char *grown = realloc(line->bytes, capacity);
    if (!grown) abort();
    line->bytes = grown;
    line->capacity = capacity;
  }
  memcpy(line->bytes + line->count, bytes, length);
  line->count += length;
}

static void line_text(Line *line, const char *text) { line_append(line, text, strlen(text)); }

static Line line_start(size_t capacity) {
  Line line = {malloc(capacity), 0, capacity};
  if (!line.bytes) abort();
  return line;
}

/// `text` as a JSON string: the quote, the backslash and the control characters escaped.
static void line_quoted(Line *line, const char *text) {
  line_text(line, "\"");
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    char escaped[8];
    if (*p == '"' || *p == '\\') {
      escaped[0] = '\\';
      escaped[1] = (char)*p;
      line_append(line, escaped, 2);
    } else if (*p < 0x20) {
      snprintf(escaped, sizeof escaped, "\\u%04x", *p);
      line_text(line, escaped);
    } else {
      line_append(line, (const char *)p, 1);
    }
  }
  line_text(line, "\"");
}

static void line_number(Line *line, long number) {
  char digits[24];
  snprintf(digits, sizeof digits, "%ld", number);
  line_text(line, digits);
}

/// Ends the line and writes it whole, under the lock that keeps lines apart; frees it.
static void line_send(Line *line) {
  line_text(line, "\n");
  pthread_mutex_lock(&channelLock);
  size_t offset = 0;
  while (offset < line->count) {
    ssize_t written = write(channel, line->bytes + offset, line->count - offset);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) _exit(0);
    offset += (size_t)written;
  }
  pthread_mutex_unlock(&channelLock);
  free(line->bytes);
}

/// An exception nothing caught is the class's crash: its name and reason are the last words
/// tokendash reads on stderr, as a phone's crash log would give them.
static void died_of(NSException *exception) {
  fprintf(stderr, "Uncaught exception %s: %s\n", exception.name.UTF8String ?: "?",
          exception.reason.UTF8String ?: "(no reason)");
  fflush(stderr);
  abort();
}

static void completed(long call, id token, NSError *error) {
  Line line = line_start(1024);
  line_text(&line, "{\"t\":\"completion\",\"call\":");
  line_number(&line, call);
  if (token) {
    if ([token isKindOfClass:[NSString class]]) {
      line_text(&line, ",\"token\":");
      line_quoted(&line, [(NSString *)token UTF8String] ?: "");
    } else {
      // The samples pass the backend's JSON value on unchecked; a number or null is not a token.
      NSString *what = [NSString stringWithFormat:@"the completion was given a %@, not a string",
                                                  NSStringFromClass([token class])];
      line_text(&line, ",\"error\":");
      line_quoted(&line, what.UTF8String);
    }
  }
  if (error) {
    NSString *domain = [NSString stringWithFormat:@"Error Domain=%@ Code=%ld", error.domain, (long)error.code];
    NSString *words =
        [NSString stringWithFormat:@"%@ (%@ %ld)", error.localizedDescription, error.domain, (long)error.code];
    line_text(&line, ",\"error\":");
    line_quoted(&line, domain.UTF8String);
    line_text(&line, ",\"description\":");
    line_quoted(&line, words.UTF8String);
  }
  line_text(&line, "}");
  line_send(&line);
}

/// One call, as a request line asked for it.
typedef struct {
  long call;
  char *ID;
  char *task;
} Request;

static void run(Request *request) {
  @autoreleasepool {
    long call = request->call;
    NSString *ID = [NSString stringWithUTF8String:request->ID] ?: @"";
    NSString *task = request->task ? [NSString stringWithUTF8String:request->task] : nil;
    TokendashContext *context = [[TokendashContext alloc] initWithTokendashID:ID task:task];
    @try {
      [provider fetchTokenWithContext:context
                           completion:^(NSString *_Nullable token, NSError *_Nullable error) {
                             completed(call, token, error);
                           }];
    } @catch (NSException *exception) {
      died_of(exception);
    }
    Line line = line_start(64);
    line_text(&line, "{\"t\":\"returned\",\"call\":");
    line_number(&line, call);
    line_text(&line, "}");
    line_send(&line);
  }
  free(request->ID);
  free(request->task);
  free(request);
}

/// A thread parked on a semaphore of its own until the reading thread posts it a call. Workers
/// are reused in turn and handed calls with no order ThreadSanitizer trusts but the reader's
/// post: a worker says it is idle through a relaxed atomic, and two calls in a row never run on
/// one thread (main.swift's Worker says why).
typedef struct Worker {
  sem_t ready;
  /// Set by the worker when its call has returned, cleared by the reader as it hands one over.
  atomic_int idle;
  /// The call handed over, stored before `ready` is posted.
  _Atomic(Request *) handed;
} Worker;

/// Every worker started, and which ran the last call; touched only by the reading thread.
static Worker **workers;
static size_t workerCount;
static size_t workerCapacity;
static size_t last;

static void *work(void *raw) {
  Worker *worker = raw;
  for (;;) {
    while (sem_wait(&worker->ready) != 0 && errno == EINTR) {
    }
    Request *request = atomic_exchange_explicit(&worker->handed, NULL, memory_order_relaxed);
    if (!request) break;
    run(request);
    atomic_store_explicit(&worker->idle, 1, memory_order_relaxed);
  }
  return NULL;
}

/// Starts a worker's thread parked until a call is posted, or NULL if no thread starts.
static Worker *prepare(void) {
  if (workerCount == workerCapacity) {
    size_t capacity = workerCapacity ? workerCapacity * 2 : 8;
    Worker **grown = realloc(workers, capacity * sizeof(Worker *));
    if (!grown) return NULL;
    workers = grown;
    workerCapacity = capacity;
  }
  Worker *worker = calloc(1, sizeof(Worker));
  if (!worker) return NULL;
  sem_init(&worker->ready, 0, 0);
  // 512 KiB, an iOS secondary thread's stack (the SDK's queues run on such threads).
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, 512 << 10);
  pthread_t thread;
  int started = pthread_create(&thread, &attributes, work, worker);
  pthread_attr_destroy(&attributes);
  if (started != 0) {
    sem_destroy(&worker->ready);
    free(worker);
    return NULL;
  }
  pthread_detach(thread);
  workers[workerCount++] = worker;
  return worker;
}

/// Hands one call to a worker's thread, as the SDK's queues would call on one of theirs: the
/// first idle one after the last call's, never that one; a new one when none is idle.
static void start(Request *request) {
  Worker *worker = NULL;
  for (size_t step = 1; step < workerCount; step++) {
    size_t index = (last + step) % workerCount;
    if (atomic_load_explicit(&workers[index]->idle, memory_order_relaxed)) {
      worker = workers[index];
      last = index;
      break;
    }
  }
  if (!worker && (worker = prepare())) last = workerCount - 1;
  if (!worker) {
    free(request->ID);
    free(request->task);
    free(request);
    return;
  }
  atomic_store_explicit(&worker->idle, 0, memory_order_relaxed);
  atomic_store_explicit(&worker->handed, request, memory_order_relaxed);
  sem_post(&worker->ready);
}

/// The value of `"key":` in the request line `start..<end`, which tokendash writes itself: a
/// number or a string (an escaped character kept as the one after its backslash), malloc'd.
static char *field(const char *key, const char *start, const char *end) {
  char pattern[32];
  int length = snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char *p = start;
  for (;;) {
    if (end - p < length) return NULL;
    const char *quote = memchr(p, '"', (size_t)(end - p));
    if (!quote || end - quote < length) return NULL;
    if (memcmp(quote, pattern, (size_t)length) == 0) {
      p = quote + length;
      break;
    }
    p = quote + 1;
  }
  char *value = malloc((size_t)(end - p) + 1);
  if (!value) return NULL;
  size_t count = 0;
  if (p < end && *p != '"') {
    while (p < end && *p >= '0' && *p <= '9') value[count++] = *p++;
    value[count] = 0;
    return value;
  }
  for (p++; p < end; p++) {
    if (*p == '\\' && p + 1 < end) {
      value[count++] = *++p;
    } else if (*p == '"') {
      value[count] = 0;
      return value;
    } else {
      value[count++] = *p;
    }
  }
  free(value);
  return NULL;
}

/// Reads request lines from descriptor 3 until it closes, each one a call.
static void serve(void) {
  enum { size = 1 << 16 };
  static char buffer[size];
  size_t filled = 0;
  for (;;) {
    // A line longer than the buffer is not one tokendash writes: it is dropped.
    if (filled == size) filled = 0;
    ssize_t count = read(requests, buffer + filled, size - filled);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return;
    filled += (size_t)count;
    const char *cursor = buffer;
    const char *end = buffer + filled;
    const char *newline;
    while ((newline = memchr(cursor, '\n', (size_t)(end - cursor)))) {
      char *call = field("call", cursor, newline);
      char *ID = field("id", cursor, newline);
      if (call && *call && ID) {
        Request *request = malloc(sizeof(Request));
        if (request) {
          request->call = strtol(call, NULL, 10);
          request->ID = ID;
          request->task = field("task", cursor, newline);
          ID = NULL;
          start(request);
        }
      }
      free(call);
      free(ID);
      cursor = newline + 1;
    }
    filled = (size_t)(end - cursor);
    if (filled > 0 && cursor != buffer) memmove(buffer, cursor, filled);
  }
}

/// Says the status the class passed to exit() before ThreadSanitizer, having reported a race,
/// may replace it with its own. One short write, no lock: another thread may hold the line lock.
static void exiting(int status, void *unused) {
  (void)unused;
  char text[48];
  int length = snprintf(text, sizeof text, "{\"t\":\"exiting\",\"status\":%d}\n", status);
  if (length > 0) (void)!write(channel, text, (size_t)length);
}

int main(void) {
  // What the class starts inherits neither protocol descriptor.
  fcntl(requests, F_SETFD, FD_CLOEXEC);
  fcntl(channel, F_SETFD, FD_CLOEXEC);
  on_exit(exiting, NULL);
  // Line by line, so what the class prints shows as it prints it, not when a buffer fills.
  setvbuf(stdout, NULL, _IOLBF, 0);
  NSSetUncaughtExceptionHandler(died_of);
  @autoreleasepool {
    Class class = NSClassFromString(@TOKENDASH_PROVIDER_CLASS);
    if (!class || ![class conformsToProtocol:@protocol(TOKENDASH_PROTOCOL)]) {
      fprintf(stderr, "tokendash's provider host: no class %s conforming to the SDK's protocol was linked\n",
              TOKENDASH_PROVIDER_CLASS);
      return 3;
    }
    @try {
      provider = [[class alloc] init];
    } @catch (NSException *exception) {
      died_of(exception);
    }
  }
  Line ready = line_start(16);
  line_text(&ready, "{\"t\":\"ready\"}");
  line_send(&ready);
  serve();
  return 0;
}
