/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.samples;

import io.prometheus.metrics.exporter.common.PrometheusHttpExchange;
import io.prometheus.metrics.exporter.common.PrometheusHttpRequest;
import io.prometheus.metrics.exporter.common.PrometheusHttpResponse;
import io.prometheus.metrics.exporter.common.PrometheusScrapeHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.agrona.CloseHelper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The exporter's HTTP/1.1 server: one thread over non-blocking sockets, so a client that sends its request or takes
 * its response slowly holds at most a connection slot, never a thread.
 * <p>
 * Limits: a request (line and headers, at most {@link #MAX_REQUEST_BYTES}) must arrive within the read timeout of
 * the connection being accepted or of its first byte; an idle keep-alive connection is closed after the idle
 * timeout; a response must be taken within {@link #WRITE_TIMEOUT_MS}. At most {@code maxConnections} are open: a new
 * connection beyond them replaces the open one that has waited longest (for its request or for its response to be
 * taken), so clients that hold connections open cannot lock a scrape out.
 * <p>
 * Serves {@code GET} and {@code HEAD} of {@code /metrics} through the Prometheus library's
 * {@link PrometheusScrapeHandler} (format negotiated from {@code Accept}, gzip, {@code name[]} and {@code debug}),
 * {@code /-/healthy} and {@code /}; 404 for another path, 405 for another method. Request bodies are not read: a
 * request that announces one is answered and its connection closed. A connection closed after its response is shut
 * for output first and drained for up to a second, so that unread request bytes do not reset it before the client
 * has read the response.
 */
final class MetricsHttpServer implements AutoCloseable
{
    /**
     * Longest request line and headers accepted; a longer one is answered 431 and its connection closed.
     */
    static final int MAX_REQUEST_BYTES = 8192;

    /**
     * Time a client has to take a whole response, the same as Prometheus's default scrape timeout.
     */
    static final long WRITE_TIMEOUT_MS = 10_000;

    private static final int MAX_HEADERS = 64;
    private static final int ACCEPTS_PER_CYCLE = 16;
    private static final long ACCEPT_RETRY_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final String TEXT = "text/plain; charset=utf-8";
    private static final byte[] HEALTHY = "Exporter is healthy.\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] INDEX = "MetaRoCE driver exporter: the metrics are at /metrics\n"
        .getBytes(StandardCharsets.UTF_8);
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final DateTimeFormatter IMF_FIXDATE =
        DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);

    private static final int READING = 0;
    private static final int WRITING = 1;
    private static final int CLOSED = 2;
    private static final int LINGERING = 3;
    private static final long MAX_LINGER_NS = TimeUnit.SECONDS.toNanos(1);

    private final ServerSocketChannel serverChannel;
    private final Selector selector;
    private final SelectionKey acceptKey;
    private final PrometheusScrapeHandler scrapeHandler;
    private final PrintStream log;
    private final long readTimeoutNs;
    private final long idleTimeoutNs;
    private final long writeTimeoutNs = TimeUnit.MILLISECONDS.toNanos(WRITE_TIMEOUT_MS);
    private final long lingerNs;
    private final Connection[] connections;
    private final Connection[] spares;
    private final Exchange exchange = new Exchange();
    private final Bytes head = new Bytes(512);
    private final Bytes body = new Bytes(64 * 1024);
    private final StringBuilder headText = new StringBuilder(256);
    private final ByteBuffer[] gather = new ByteBuffer[2];
    private final String[] requestHeaderNames = new String[MAX_HEADERS];
    private final String[] requestHeaderValues = new String[MAX_HEADERS];
    private final Thread thread;
    private volatile boolean running = true;
    private boolean closed;
    private int connectionCount;
    private int spareCount;
    private long waitSequence;
    private boolean acceptReady;
    private boolean acceptPaused;
    private long acceptResumeNs;
    private long dateSecond = Long.MIN_VALUE;
    private String date;

    private String path;
    private String query;
    private boolean headRequest;
    private int headerCount;

    private static final class Connection
    {
        final ByteBuffer in = ByteBuffer.allocate(MAX_REQUEST_BYTES);
        int index;
        int state = CLOSED;
        SocketChannel channel;
        SelectionKey key;
        ByteBuffer pending;
        long deadlineNs;
        long waitingSince;
        boolean requestStarted;
        boolean closeAfterResponse;
        int scanned;
        int lineStart;
        int requestEnd;
    }

    private MetricsHttpServer(
        final ServerSocketChannel serverChannel,
        final Selector selector,
        final PrometheusRegistry registry,
        final long readTimeoutMs,
        final long idleTimeoutMs,
        final int maxConnections,
        final PrintStream log) throws IOException
    {
        this.serverChannel = serverChannel;
        this.selector = selector;
        this.acceptKey = serverChannel.register(selector, SelectionKey.OP_ACCEPT);
        this.scrapeHandler = new PrometheusScrapeHandler(registry);
        this.readTimeoutNs = TimeUnit.MILLISECONDS.toNanos(readTimeoutMs);
        this.idleTimeoutNs = TimeUnit.MILLISECONDS.toNanos(idleTimeoutMs);
        this.lingerNs = Math.min(readTimeoutNs, MAX_LINGER_NS);
        this.connections = new Connection[maxConnections];
        this.spares = new Connection[maxConnections];
        this.log = log;
        this.thread = new Thread(this::run, "metaroce-exporter-http");
        this.thread.setDaemon(true);
    }

    /**
     * Listen and start serving on a thread of its own.
     *
     * @param bindAddress    local address to listen on.
     * @param port           TCP port, 0 for any free one.
     * @param registry       scraped for {@code /metrics}.
     * @param readTimeoutMs  time for a request's line and headers to arrive.
     * @param idleTimeoutMs  time a keep-alive connection may wait for its next request.
     * @param maxConnections open at once.
     * @param log            to print a failed scrape to.
     * @return the running server.
     * @throws IOException if the address cannot be listened on.
     */
    static MetricsHttpServer start(
        final InetAddress bindAddress,
        final int port,
        final PrometheusRegistry registry,
        final long readTimeoutMs,
        final long idleTimeoutMs,
        final int maxConnections,
        final PrintStream log) throws IOException
    {
        if (readTimeoutMs < 1 || idleTimeoutMs < 1 || maxConnections < 1)
        {
            throw new IllegalArgumentException("timeouts and connections must be positive: readTimeoutMs=" +
                readTimeoutMs + " idleTimeoutMs=" + idleTimeoutMs + " maxConnections=" + maxConnections);
        }

        final ServerSocketChannel serverChannel = ServerSocketChannel.open();
        Selector selector = null;
        try
        {
            serverChannel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            serverChannel.bind(new InetSocketAddress(bindAddress, port), 64);
            serverChannel.configureBlocking(false);
            selector = Selector.open();
            final MetricsHttpServer server = new MetricsHttpServer(
                serverChannel, selector, registry, readTimeoutMs, idleTimeoutMs, maxConnections, log);
            server.thread.start();
            return server;
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.quietCloseAll(selector, serverChannel);
            throw ex;
        }
    }

    /**
     * The port listened on.
     *
     * @return the TCP port, the one chosen when started with 0.
     */
    int port()
    {
        return serverChannel.socket().getLocalPort();
    }

    /**
     * Stop serving, close every connection and wait for the server's thread to end. Not thread safe: one caller.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        running = false;
        selector.wakeup();
        if (Thread.currentThread() != thread)
        {
            boolean interrupted = false;
            while (thread.isAlive())
            {
                try
                {
                    thread.join();
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true;
                }
            }
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
        // Closed here only, so a wakeup never meets a selector the server's thread closed.
        CloseHelper.quietClose(selector);
    }

    private void run()
    {
        try
        {
            while (running)
            {
                selector.select(this::onSelected, selectTimeoutMs(System.nanoTime()));
                final long nowNs = System.nanoTime();
                if (acceptReady || (acceptPaused && nowNs - acceptResumeNs >= 0))
                {
                    acceptConnections(nowNs);
                }
                closeExpired(nowNs);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            log.println("metaroce exporter: the HTTP server stopped: " + ex);
        }
        finally
        {
            for (int i = connectionCount - 1; i >= 0; i--)
            {
                close(connections[i]);
            }
            CloseHelper.quietClose(serverChannel);
        }
    }

    private long selectTimeoutMs(final long nowNs)
    {
        long earliestNs = Long.MAX_VALUE;
        for (int i = 0; i < connectionCount; i++)
        {
            earliestNs = Math.min(earliestNs, connections[i].deadlineNs - nowNs);
        }
        if (acceptPaused)
        {
            earliestNs = Math.min(earliestNs, acceptResumeNs - nowNs);
        }

        // Zero would mean no timeout; an expired deadline is handled after waiting a millisecond.
        return Long.MAX_VALUE == earliestNs ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(earliestNs) + 1);
    }

    private void onSelected(final SelectionKey key)
    {
        if (key == acceptKey)
        {
            acceptReady = true;
            return;
        }

        final Connection connection = (Connection)key.attachment();
        try
        {
            if (key.isWritable())
            {
                onWritable(connection, System.nanoTime());
            }
            else if (key.isReadable())
            {
                onReadable(connection, System.nanoTime());
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            failed(connection, ex);
        }
    }

    private void failed(final Connection connection, final Exception ex)
    {
        // A client that resets or goes away is normal; anything else is this server's fault and worth a line.
        if (ex instanceof RuntimeException)
        {
            log.println("metaroce exporter: an HTTP connection failed: " + ex);
        }
        close(connection);
    }

    private void acceptConnections(final long nowNs)
    {
        acceptReady = false;
        if (acceptPaused)
        {
            acceptPaused = false;
            acceptKey.interestOps(SelectionKey.OP_ACCEPT);
        }

        // A bounded batch, so the connections already open are read between batches of a flood.
        for (int i = 0; i < ACCEPTS_PER_CYCLE; i++)
        {
            final SocketChannel channel;
            try
            {
                channel = serverChannel.accept();
            }
            catch (final IOException ex)
            {
                // Out of file descriptors, say: the listener stays ready, so pause rather than spin.
                log.println("metaroce exporter: cannot accept a connection: " + ex);
                acceptKey.interestOps(0);
                acceptPaused = true;
                acceptResumeNs = nowNs + ACCEPT_RETRY_NS;
                return;
            }
            if (null == channel)
            {
                return;
            }
            if (connectionCount == connections.length)
            {
                evictLongestWaiting();
            }
            open(channel, nowNs);
        }
    }

    private void evictLongestWaiting()
    {
        Connection longest = connections[0];
        for (int i = 1; i < connectionCount; i++)
        {
            if (connections[i].waitingSince < longest.waitingSince)
            {
                longest = connections[i];
            }
        }
        close(longest);
    }

    private void open(final SocketChannel channel, final long nowNs)
    {
        final Connection connection = spareCount > 0 ? spares[--spareCount] : new Connection();
        try
        {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            connection.channel = channel;
            connection.key = channel.register(selector, SelectionKey.OP_READ, connection);
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(channel);
            connection.channel = null;
            spares[spareCount++] = connection;
            return;
        }

        connection.index = connectionCount;
        connections[connectionCount++] = connection;
        connection.state = READING;
        connection.in.clear();
        connection.scanned = 0;
        connection.lineStart = 0;
        connection.pending = null;
        connection.closeAfterResponse = false;
        // The first request's read timeout runs from the accept, so a silent connection is closed as soon.
        connection.requestStarted = true;
        connection.deadlineNs = nowNs + readTimeoutNs;
        connection.waitingSince = ++waitSequence;
        try
        {
            // Most clients have sent their request by now.
            onReadable(connection, nowNs);
        }
        catch (final IOException | RuntimeException ex)
        {
            failed(connection, ex);
        }
    }

    private void close(final Connection connection)
    {
        if (CLOSED == connection.state)
        {
            return;
        }

        CloseHelper.quietClose(connection.channel);
        connection.state = CLOSED;
        connection.channel = null;
        connection.key = null;
        connection.pending = null;
        final Connection last = connections[--connectionCount];
        connections[connection.index] = last;
        last.index = connection.index;
        connections[connectionCount] = null;
        spares[spareCount++] = connection;
    }

    private void closeExpired(final long nowNs)
    {
        // Backwards, so the connection moved into a closed one's place has been checked already.
        for (int i = connectionCount - 1; i >= 0; i--)
        {
            if (nowNs - connections[i].deadlineNs >= 0)
            {
                close(connections[i]);
            }
        }
    }

    private void onReadable(final Connection connection, final long nowNs) throws IOException
    {
        if (LINGERING == connection.state)
        {
            // What the client still sends is dropped until it closes.
            connection.in.clear();
        }
        final int read = connection.channel.read(connection.in);
        if (read < 0)
        {
            close(connection);
        }
        else if (read > 0 && READING == connection.state)
        {
            if (!connection.requestStarted)
            {
                connection.requestStarted = true;
                connection.deadlineNs = nowNs + readTimeoutNs;
            }
            serveRequests(connection, nowNs);
        }
    }

    private void onWritable(final Connection connection, final long nowNs) throws IOException
    {
        connection.channel.write(connection.pending);
        if (!connection.pending.hasRemaining())
        {
            connection.pending = null;
            responseSent(connection, nowNs);
            serveRequests(connection, nowNs);
        }
    }

    private void serveRequests(final Connection connection, final long nowNs) throws IOException
    {
        // One at a time while requests are complete: a client may send its next before reading a response.
        while (READING == connection.state)
        {
            final int end = headerEnd(connection);
            if (end < 0)
            {
                if (!connection.in.hasRemaining())
                {
                    headRequest = false;
                    connection.requestEnd = connection.in.position();
                    connection.closeAfterResponse = true;
                    respondText(connection, 431, "request line and headers longer than " + MAX_REQUEST_BYTES +
                        " bytes\n", nowNs);
                }
                return;
            }

            connection.requestEnd = end;
            handleRequest(connection, end, nowNs);
        }
    }

    /**
     * The index just after the empty line that ends the request's headers, or -1 if it has not arrived yet.
     */
    private static int headerEnd(final Connection connection)
    {
        final byte[] bytes = connection.in.array();
        final int limit = connection.in.position();
        for (int i = connection.scanned; i < limit; i++)
        {
            if ('\n' == bytes[i])
            {
                final int lineEnd = i > connection.lineStart && '\r' == bytes[i - 1] ? i - 1 : i;
                final boolean empty = lineEnd == connection.lineStart && connection.lineStart > 0;
                connection.lineStart = i + 1;
                if (empty)
                {
                    connection.scanned = i + 1;
                    return i + 1;
                }
            }
        }
        connection.scanned = limit;

        return -1;
    }

    private void handleRequest(final Connection connection, final int end, final long nowNs) throws IOException
    {
        final byte[] bytes = connection.in.array();
        headRequest = false;
        final int lineEnd = lineEnd(bytes, 0, end);
        final int firstSpace = indexOf(bytes, 0, lineEnd, (byte)' ');
        final int secondSpace = firstSpace < 0 ? -1 : indexOf(bytes, firstSpace + 1, lineEnd, (byte)' ');
        final String version = secondSpace < 0 ? "" : ascii(bytes, secondSpace + 1, lineEnd);
        final boolean http10 = "HTTP/1.0".equals(version);
        if (secondSpace < 0 || (!http10 && !"HTTP/1.1".equals(version)) || !parseHeaders(bytes, end))
        {
            connection.closeAfterResponse = true;
            respondText(connection, 400, "bad request\n", nowNs);
            return;
        }
        if (headerCount > MAX_HEADERS)
        {
            connection.closeAfterResponse = true;
            respondText(connection, 431, "more than " + MAX_HEADERS + " headers\n", nowNs);
            return;
        }

        final String method = ascii(bytes, 0, firstSpace);
        parseTarget(ascii(bytes, firstSpace + 1, secondSpace));
        connection.closeAfterResponse |= http10 || hasToken(header("Connection"), "close") ||
            (null != header("Content-Length") && !"0".equals(header("Content-Length"))) ||
            null != header("Transfer-Encoding");
        headRequest = "HEAD".equals(method);
        final boolean known = "/metrics".equals(path) || "/-/healthy".equals(path) || "/".equals(path);
        if (!known)
        {
            respondText(connection, 404, "not found; the metrics are at /metrics\n", nowNs);
        }
        else if (!headRequest && !"GET".equals(method))
        {
            exchange.reset();
            exchange.setHeader("Allow", "GET, HEAD");
            exchange.setHeader("Content-Type", TEXT);
            body.writeBytes(("method " + method + " not allowed\n").getBytes(StandardCharsets.UTF_8));
            respond(connection, 405, nowNs);
        }
        else if ("/metrics".equals(path))
        {
            scrape();
            respond(connection, exchange.status, nowNs);
        }
        else
        {
            exchange.reset();
            exchange.setHeader("Content-Type", TEXT);
            body.writeBytes("/".equals(path) ? INDEX : HEALTHY);
            respond(connection, 200, nowNs);
        }
    }

    private boolean parseHeaders(final byte[] bytes, final int end)
    {
        headerCount = 0;
        final int requestLineEnd = lineEnd(bytes, 0, end);
        int lineStart = requestLineEnd + ('\r' == bytes[requestLineEnd] ? 2 : 1);
        while (lineStart < end)
        {
            final int lineEnd = lineEnd(bytes, lineStart, end);
            if (lineEnd == lineStart)
            {
                return true;
            }
            final int colon = indexOf(bytes, lineStart, lineEnd, (byte)':');
            // A folded line, a line without a name and a space before the colon are all malformed.
            if (colon <= lineStart || ' ' == bytes[lineStart] || '\t' == bytes[lineStart] ||
                ' ' == bytes[colon - 1] || '\t' == bytes[colon - 1])
            {
                return false;
            }
            if (headerCount < MAX_HEADERS)
            {
                requestHeaderNames[headerCount] = ascii(bytes, lineStart, colon);
                requestHeaderValues[headerCount] = ascii(bytes, colon + 1, lineEnd).trim();
            }
            headerCount++;
            lineStart = lineEnd + ('\r' == bytes[lineEnd] ? 2 : 1);
        }

        return false;
    }

    private void parseTarget(final String target)
    {
        String pathAndQuery = target;
        // The absolute form, http://host:port/metrics, which a server must accept too.
        final int scheme = target.indexOf("://");
        if (scheme > 0 && !target.startsWith("/"))
        {
            final int slash = target.indexOf('/', scheme + 3);
            pathAndQuery = slash < 0 ? "/" : target.substring(slash);
        }
        final int question = pathAndQuery.indexOf('?');
        path = question < 0 ? pathAndQuery : pathAndQuery.substring(0, question);
        query = question < 0 ? null : pathAndQuery.substring(question + 1);
    }

    private void scrape()
    {
        exchange.reset();
        try
        {
            scrapeHandler.handleRequest(exchange);
        }
        catch (final IOException | RuntimeException ex)
        {
            exchange.fail(ex);
        }
    }

    private void respondText(final Connection connection, final int status, final String text, final long nowNs)
        throws IOException
    {
        exchange.reset();
        exchange.setHeader("Content-Type", TEXT);
        body.writeBytes(text.getBytes(StandardCharsets.UTF_8));
        respond(connection, status, nowNs);
    }

    private void respond(final Connection connection, final int status, final long nowNs) throws IOException
    {
        final StringBuilder text = headText;
        text.setLength(0);
        text.append("HTTP/1.1 ").append(status).append(' ').append(reason(status)).append("\r\n")
            .append("Date: ").append(date()).append("\r\n");
        for (int i = 0; i < exchange.responseHeaderNames.size(); i++)
        {
            final String name = exchange.responseHeaderNames.get(i);
            if (!"Content-Length".equalsIgnoreCase(name) && !"Connection".equalsIgnoreCase(name) &&
                !"Transfer-Encoding".equalsIgnoreCase(name))
            {
                text.append(name).append(": ").append(exchange.responseHeaderValues.get(i)).append("\r\n");
            }
        }
        // A HEAD response has the headers of the GET response, its length included.
        text.append("Content-Length: ").append(body.size()).append("\r\n");
        if (connection.closeAfterResponse)
        {
            text.append("Connection: close\r\n");
        }
        text.append("\r\n");
        head.reset();
        for (int i = 0, length = text.length(); i < length; i++)
        {
            head.write(text.charAt(i));
        }

        gather[0] = head.wrap();
        gather[1] = headRequest ? EMPTY : body.wrap();
        connection.channel.write(gather);
        final int remaining = gather[0].remaining() + gather[1].remaining();
        if (0 == remaining)
        {
            responseSent(connection, nowNs);
        }
        else
        {
            // Copied because the shared buffers are for the next response.
            connection.pending = ByteBuffer.allocate(remaining).put(gather[0]).put(gather[1]).flip();
            connection.state = WRITING;
            connection.key.interestOps(SelectionKey.OP_WRITE);
            connection.deadlineNs = nowNs + writeTimeoutNs;
            connection.waitingSince = ++waitSequence;
        }
        gather[0] = null;
        gather[1] = null;
    }

    private void responseSent(final Connection connection, final long nowNs) throws IOException
    {
        if (connection.closeAfterResponse)
        {
            // Closing with request bytes unread would reset the connection and could lose the response on its way.
            connection.channel.shutdownOutput();
            connection.state = LINGERING;
            connection.key.interestOps(SelectionKey.OP_READ);
            connection.deadlineNs = nowNs + lingerNs;
            return;
        }

        final ByteBuffer in = connection.in;
        in.flip().position(connection.requestEnd);
        in.compact();
        connection.scanned = 0;
        connection.lineStart = 0;
        connection.state = READING;
        connection.key.interestOps(SelectionKey.OP_READ);
        connection.waitingSince = ++waitSequence;
        connection.requestStarted = in.position() > 0;
        connection.deadlineNs = nowNs + (connection.requestStarted ? readTimeoutNs : idleTimeoutNs);
    }

    private String header(final String name)
    {
        for (int i = 0, count = Math.min(headerCount, MAX_HEADERS); i < count; i++)
        {
            if (name.equalsIgnoreCase(requestHeaderNames[i]))
            {
                return requestHeaderValues[i];
            }
        }

        return null;
    }

    private String date()
    {
        final long second = System.currentTimeMillis() / 1000;
        if (second != dateSecond)
        {
            dateSecond = second;
            date = IMF_FIXDATE.format(Instant.ofEpochSecond(second).atOffset(ZoneOffset.UTC));
        }

        return date;
    }

    private static boolean hasToken(final String value, final String token)
    {
        if (null != value)
        {
            for (final String part : value.split(","))
            {
                if (token.equalsIgnoreCase(part.trim()))
                {
                    return true;
                }
            }
        }

        return false;
    }

    private static String reason(final int status)
    {
        switch (status)
        {
            case 200:
                return "OK";
            case 400:
                return "Bad Request";
            case 404:
                return "Not Found";
            case 405:
                return "Method Not Allowed";
            case 431:
                return "Request Header Fields Too Large";
            case 500:
                return "Internal Server Error";
            default:
                return "Status";
        }
    }

    /**
     * The end of the line starting at {@code from}: the index of its CR LF or lone LF.
     */
    private static int lineEnd(final byte[] bytes, final int from, final int limit)
    {
        final int lf = indexOf(bytes, from, limit, (byte)'\n');
        final int end = lf < 0 ? limit : lf;

        return end > from && '\r' == bytes[end - 1] ? end - 1 : end;
    }

    private static int indexOf(final byte[] bytes, final int from, final int limit, final byte value)
    {
        for (int i = from; i < limit; i++)
        {
            if (value == bytes[i])
            {
                return i;
            }
        }

        return -1;
    }

    private static String ascii(final byte[] bytes, final int from, final int to)
    {
        return new String(bytes, from, to - from, StandardCharsets.ISO_8859_1);
    }

    /**
     * A growable byte array whose content is written without a copy.
     */
    private static final class Bytes extends ByteArrayOutputStream
    {
        Bytes(final int capacity)
        {
            super(capacity);
        }

        ByteBuffer wrap()
        {
            return ByteBuffer.wrap(buf, 0, count);
        }
    }

    /**
     * The request being served as the Prometheus library's scrape handler sees it, and the response it writes.
     */
    private final class Exchange implements PrometheusHttpExchange, PrometheusHttpRequest, PrometheusHttpResponse
    {
        final List<String> responseHeaderNames = new ArrayList<>();
        final List<String> responseHeaderValues = new ArrayList<>();
        int status;

        void reset()
        {
            status = 200;
            responseHeaderNames.clear();
            responseHeaderValues.clear();
            body.reset();
        }

        void fail(final Exception ex)
        {
            log.println("metaroce exporter: a scrape failed: " + ex);
            reset();
            status = 500;
            setHeader("Content-Type", TEXT);
            body.writeBytes("the scrape failed; the exporter's output says why\n".getBytes(StandardCharsets.UTF_8));
        }

        public PrometheusHttpRequest getRequest()
        {
            return this;
        }

        public PrometheusHttpResponse getResponse()
        {
            return this;
        }

        public void handleException(final IOException ex)
        {
            fail(ex);
        }

        public void handleException(final RuntimeException ex)
        {
            fail(ex);
        }

        public void close()
        {
            // The response is sent by the server once the handler returns.
        }

        public String getQueryString()
        {
            return query;
        }

        public Enumeration<String> getHeaders(final String name)
        {
            final List<String> values = new ArrayList<>(1);
            for (int i = 0, count = Math.min(headerCount, MAX_HEADERS); i < count; i++)
            {
                if (name.equalsIgnoreCase(requestHeaderNames[i]))
                {
                    values.add(requestHeaderValues[i]);
                }
            }

            return Collections.enumeration(values);
        }

        public String getMethod()
        {
            // HEAD is served as GET with the body left out, so its headers are the GET response's.
            return "GET";
        }

        public String getRequestPath()
        {
            return path;
        }

        public void setHeader(final String name, final String value)
        {
            for (int i = 0; i < responseHeaderNames.size(); i++)
            {
                if (name.equalsIgnoreCase(responseHeaderNames.get(i)))
                {
                    responseHeaderValues.set(i, value);
                    return;
                }
            }
            responseHeaderNames.add(name);
            responseHeaderValues.add(value);
        }

        public OutputStream sendHeadersAndGetBody(final int statusCode, final int contentLength)
        {
            status = statusCode;
            return body;
        }
    }
}
