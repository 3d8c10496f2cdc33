/* The kernel's floor for one vpcd-sized exchange over loopback TCP on this machine: a 4-byte
 * command and a 2-byte answer, each with vpcd's 2-byte length, blocking sockets, TCP_NODELAY,
 * no event loop and no threads. `tcp-pingpong PORT N` forks a card side and prints
 * "FLOOR N seconds microseconds-per-exchange". Benchmarks/vpcd/run.sh runs it beside vpcdtool. */
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void read_fully(int fd, unsigned char *buffer, int count) {
    for (int got = 0; got < count;) {
        ssize_t n = read(fd, buffer + got, count - got);
        if (n <= 0) exit(n == 0 ? 0 : 1);
        got += (int)n;
    }
}

static void read_message(int fd, unsigned char *buffer) {
    read_fully(fd, buffer, 2);
    read_fully(fd, buffer, (buffer[0] << 8) | buffer[1]);
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: tcp-pingpong PORT N\n"); return 2; }
    int port = atoi(argv[1]), count = atoi(argv[2]), one = 1;
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons(port),
                                   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 1)) { perror("bind"); return 1; }
    unsigned char buffer[300];
    if (fork() == 0) {  /* the card side: answer every command with 90 00 */
        int card = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(card, (struct sockaddr *)&address, sizeof address)) { perror("connect"); return 1; }
        setsockopt(card, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        const unsigned char answer[] = { 0x00, 0x02, 0x90, 0x00 };
        for (;;) { read_message(card, buffer); if (write(card, answer, sizeof answer) != sizeof answer) return 1; }
    }
    int reader = accept(listener, NULL, NULL);
    setsockopt(reader, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const unsigned char command[] = { 0x00, 0x04, 0x80, 0x10, 0x00, 0x00 };
    struct timespec start, end;
    for (int i = 0; i < count + 100; i++) {  /* 100 untimed exchanges first */
        if (i == 100) clock_gettime(CLOCK_MONOTONIC, &start);
        if (write(reader, command, sizeof command) != sizeof command) return 1;
        read_message(reader, buffer);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    close(reader);
    wait(NULL);
    double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    printf("FLOOR %d %.3f %.1f\n", count, seconds, seconds / count * 1e6);
    return 0;
}
