package io.sovia.spi.engine;

/**
 * A look at one connection from outside its lock (a listing such as {@code sovia ss}).
 *
 * @param state     TCP's word for the state: syn-sent, syn-recv, established, fin-wait (this end sent its FIN),
 *                  close-wait (the peer's FIN arrived), closing (both), reset (reset or the peer died)
 * @param sent      data bytes handed to the link so far
 * @param received  data bytes the app has read so far
 * @param sendQueue bytes written and waiting for window credit
 * @param recvQueue bytes arrived and not yet read
 */
public record SessionActivity(String state, long sent, long received, long sendQueue, long recvQueue) {
}
