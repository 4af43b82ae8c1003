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
package io.metaroce.driver;

import io.metaroce.client.exceptions.StorageSpaceException;
import io.metaroce.client.logbuffer.HeaderWriter;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.buffer.RawLog;
import io.metaroce.driver.status.SystemCounterDescriptor;
import io.metaroce.driver.status.SystemCounters;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;

/**
 * The conductor's creation of image logs for the receive endpoints ({@link PendingImage}): one log at a time, in the
 * order requested, zero-filled {@link Configuration#IMAGE_LOG_FILL_CHUNK_LENGTH} bytes per conductor duty cycle, so
 * that neither the receiver agent (whose other streams keep flowing) nor the conductor's own work (client
 * commands, positions, cleaning, timers) waits for a large log. A mapped log, its metadata written, goes back to its
 * endpoint through the receiver's command queue.
 * <p>
 * <b>Storage.</b> Before the file is created, and again before each chunk, the usable space of the file system must
 * cover what the log still needs plus the storage reserve kept for local clients
 * ({@link Configuration#IMAGE_STORAGE_RESERVE_PROP_NAME}); the chunks are written with file channel writes, never
 * through a mapping, so a file system that fills up meanwhile (another process) fails a write with "No space left on
 * device" instead of faulting (SIGBUS) a mapped page, and the log is mapped only once every page is backed. A log
 * that does not fit, or whose creation fails, is refused: its partial file (created by this driver) is deleted at
 * once, the refusal is counted by reason ({@link SystemCounters#imageLogsRefused(int)}) and written to the distinct
 * error log once per session until the session gets a log (a sender retries its opening every second or so), and the
 * request is answered {@link PendingImage.State#FAILED}, so the endpoint refuses the stream's opening with
 * RESOURCE_EXHAUSTED and the sender's next opening asks for a new log.
 * <p>
 * A log stays in this creator's list of logs in transit from its mapping until a stream takes it (the conductor
 * then owns it as a {@link NetworkImage}) or the endpoint returns it, so a log is freed exactly once, at the latest
 * when the driver closes. Conductor thread only.
 */
final class ImageLogCreator implements AutoCloseable
{
    private static final int LOGGED_REFUSALS_MAX = 1024;

    private final LogFactory logFactory;
    private final TransportCommandQueue receiverCommands;
    private final ErrorHandler errorHandler;
    private final AtomicCounter bytesMapped;
    private final SystemCounters systemCounters;
    private final long storageReserve;
    private final int filePageSize;
    private final int fillChunkLength;
    private final UnsafeBuffer defaultHeader = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);
    private final ArrayDeque<PendingImage> requests = new ArrayDeque<>();
    private final ArrayList<PendingImage> inTransit = new ArrayList<>();
    private final HashMap<SessionRef, Integer> loggedRefusals = new HashMap<>();

    ImageLogCreator(
        final LogFactory logFactory,
        final TransportCommandQueue receiverCommands,
        final ErrorHandler errorHandler,
        final SystemCounters systemCounters,
        final long storageReserve,
        final int filePageSize,
        final int fillChunkLength)
    {
        this.logFactory = logFactory;
        this.receiverCommands = receiverCommands;
        this.errorHandler = errorHandler;
        this.bytesMapped = systemCounters.get(SystemCounterDescriptor.BYTES_CURRENTLY_MAPPED);
        this.systemCounters = systemCounters;
        this.storageReserve = storageReserve;
        this.filePageSize = filePageSize;
        this.fillChunkLength = fillChunkLength;
    }

    /**
     * Agent event: a receive endpoint asks for an image log.
     */
    void onRequest(final PendingImage request)
    {
        requests.addLast(request);
    }

    /**
     * Agent event: an endpoint returns a log that no connection took.
     */
    void onReturned(final PendingImage request)
    {
        if (inTransit.remove(request))
        {
            free(request);
        }
    }

    /**
     * Agent event: a connection took the log; its {@link NetworkImage} owns it from now on.
     */
    void onTaken(final PendingImage request)
    {
        inTransit.remove(request);
    }

    /**
     * Logs requested and not yet answered, the one being created included.
     *
     * @return the count.
     */
    int requestCount()
    {
        return requests.size();
    }

    /**
     * Logs mapped and taken by no connection yet.
     *
     * @return the count.
     */
    int inTransitCount()
    {
        return inTransit.size();
    }

    /**
     * Conductor duty cycle: one step of the oldest request (a chunk of its file, or its mapping and answer, or its
     * refusal).
     *
     * @return work done.
     */
    int doWork()
    {
        final PendingImage request = requests.peekFirst();
        if (null == request)
        {
            return 0;
        }

        if (request.isCancelled())
        {
            requests.pollFirst();
            if (null != request.allocation())
            {
                request.allocation().abort();
            }
            return 1;
        }

        if (receiverCommands.size() >= TransportCommandQueue.CAPACITY - 4)
        {
            return 0; // the answer must fit the queue, whose only producer is this thread
        }

        final RawLog rawLog;
        try
        {
            if (!allocate(request))
            {
                return 1;
            }
            rawLog = map(request);
        }
        catch (final StorageSpaceException ex)
        {
            // the file system refused a write (filled up by another process): the file is already deleted
            refuse(request, SystemCounters.IMAGE_LOG_INSUFFICIENT_STORAGE, ex.getMessage() + "; " + usableText(), null);
            return 1;
        }
        catch (final RuntimeException ex)
        {
            refuse(request, SystemCounters.IMAGE_LOG_CREATION_ERROR, "image log of " +
                logFactory.imageLogLength(request.termLength()) + " bytes, " + usableText(), ex);
            return 1;
        }

        requests.pollFirst();
        loggedRefusals.remove(new SessionRef(request.endpoint(), request.streamId(), request.sessionId()));
        request.rawLog(rawLog);
        bytesMapped.getAndAddRelease(rawLog.logLength());
        inTransit.add(request);
        if (!answer(request, () -> request.endpoint().onImageLogCreated(request)))
        {
            inTransit.remove(request);
            free(request);
        }

        return 1;
    }

    /**
     * Free every log this creator still holds: the one being created, those queued and those in transit. Once the
     * agents have stopped and the endpoints have returned what they held.
     */
    public void close()
    {
        for (final PendingImage request : requests)
        {
            if (null != request.allocation())
            {
                request.allocation().abort();
            }
        }
        requests.clear();
        for (final PendingImage request : inTransit)
        {
            free(request);
        }
        inTransit.clear();
    }

    /**
     * One step of a log's allocation: create its file, or zero-fill one chunk more, each only while the storage
     * allows it (else the request is refused).
     *
     * @return true once the file is complete, ready to be mapped.
     */
    private boolean allocate(final PendingImage request)
    {
        final LogFactory.ImageLogAllocation allocation = request.allocation();
        if (null == allocation)
        {
            if (!fits(request, logFactory.imageLogLength(request.termLength())))
            {
                return false;
            }
            request.allocation(
                logFactory.beginImage(request.correlationId(), request.termLength(), request.isSparse()));
        }
        else if (!allocation.isComplete() && !fits(request, allocation.remaining()))
        {
            return false;
        }

        return request.allocation().fill(fillChunkLength);
    }

    /**
     * Does the rest of a log fit, with the storage reserve left over? Refuses the request when not.
     */
    private boolean fits(final PendingImage request, final long needed)
    {
        final long usable = logFactory.imagesUsableSpace();
        final long logLength = logFactory.imageLogLength(request.termLength());
        if (usable < needed)
        {
            refuse(request, SystemCounters.IMAGE_LOG_INSUFFICIENT_STORAGE, "insufficient usable storage for " +
                "image log of " + logLength + " bytes in " + logFactory.imagesDirectory() + ": " + usable +
                " bytes usable" + (needed < logLength ? ", " + needed + " bytes of it still to allocate" : ""), null);
            return false;
        }

        if (usable - needed < storageReserve)
        {
            refuse(request, SystemCounters.IMAGE_LOG_STORAGE_RESERVE, "image log of " + logLength + " bytes in " +
                logFactory.imagesDirectory() + " would leave " + (usable - needed) + " of " + usable +
                " bytes usable, less than " + Configuration.IMAGE_STORAGE_RESERVE_PROP_NAME + " (" + storageReserve +
                " bytes) kept for local clients", null);
            return false;
        }

        return true;
    }

    /**
     * Refuse the oldest request: delete its partial file, count it, log it (once per session until the session gets a
     * log) and answer it failed.
     */
    private void refuse(final PendingImage request, final int reason, final String detail, final RuntimeException cause)
    {
        requests.pollFirst();
        if (null != request.allocation())
        {
            request.allocation().close(); // the partial file goes now; a refused write or failed mapping deleted it
        }

        final AtomicCounter refused = systemCounters.imageLogsRefused(reason);
        if (null != refused)
        {
            refused.incrementRelease();
        }

        final SessionRef session = new SessionRef(request.endpoint(), request.streamId(), request.sessionId());
        if (loggedRefusals.size() >= LOGGED_REFUSALS_MAX && !loggedRefusals.containsKey(session))
        {
            loggedRefusals.clear(); // bounded: a peer opening many sessions may get some refusals logged again
        }
        final Integer previous = loggedRefusals.put(session, reason);
        if (null == previous || reason != previous)
        {
            final String message = "image log refused for stream " + request.streamId() + " session " +
                request.sessionId() + " on " + request.endpoint().channel().canonicalForm() +
                ", the opening answered RESOURCE_EXHAUSTED: cannot create its log: " + detail;
            errorHandler.onError(null == cause ?
                new StorageSpaceException(message) : new IllegalStateException(message, cause));
        }

        answer(request, () -> request.endpoint().onImageLogFailed(request));
    }

    private String usableText()
    {
        try
        {
            return logFactory.imagesUsableSpace() + " bytes usable in " + logFactory.imagesDirectory();
        }
        catch (final RuntimeException ex)
        {
            return "usable space unknown: " + ex.getMessage();
        }
    }

    private RawLog map(final PendingImage request)
    {
        final RawLog rawLog = request.allocation().map();
        try
        {
            HeaderWriter.writeDefaultHeader(defaultHeader, request.sessionId(), request.streamId());
            LogBufferDescriptor.initialiseMetaData(
                rawLog.metaDataBuffer(),
                request.correlationId(),
                request.initialTermId(),
                (request.mtu() - UdpChannel.DATA_HEADER_LENGTH) & ~(FrameDescriptor.FRAME_ALIGNMENT - 1),
                request.termLength(),
                filePageSize,
                request.windowLength(),
                defaultHeader);
        }
        catch (final RuntimeException ex)
        {
            rawLog.free();
            throw ex;
        }

        return rawLog;
    }

    private boolean answer(final PendingImage request, final Runnable command)
    {
        if (receiverCommands.offer(command))
        {
            return true;
        }

        errorHandler.onError(new IllegalStateException("receiver command queue full: image log of stream " +
            request.streamId() + " session " + request.sessionId() + " dropped"));
        return false;
    }

    private void free(final PendingImage request)
    {
        final RawLog rawLog = request.rawLog();
        bytesMapped.getAndAddRelease(-rawLog.logLength());
        rawLog.free();
    }

    private record SessionRef(ReceiveEndpoint endpoint, int streamId, int sessionId)
    {
    }
}
