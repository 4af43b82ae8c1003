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

import io.metaroce.client.ConcurrentPublication;
import io.metaroce.client.Counter;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.exceptions.DriverTimeoutException;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The client side of {@link ProcessTest}, run in its own JVM: {@code publish}, {@code subscribe}, {@code hold}
 * (adds resources and waits to be killed) or {@code await-driver-timeout}. Reports on standard output.
 */
public final class ClientProcessMain
{
    private ClientProcessMain()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final String mode = args[0];
        final String directory = args[1];
        final int streamId = Integer.parseInt(args[2]);
        final AtomicReference<Throwable> asyncError = new AtomicReference<>();
        final MetaRoce.Context ctx = TestContexts.clientContext(directory)
            .errorHandler((throwable) -> asyncError.compareAndSet(null, throwable));

        try (MetaRoce client = MetaRoce.connect(ctx))
        {
            switch (mode)
            {
                case "publish":
                    publish(client, streamId, Integer.parseInt(args[3]));
                    break;
                case "subscribe":
                    System.exit(subscribe(client, streamId, Integer.parseInt(args[3])));
                    break;
                case "hold":
                    hold(client, streamId);
                    break;
                case "await-driver-timeout":
                    System.exit(awaitDriverTimeout(client, streamId, asyncError));
                    break;
                default:
                    System.out.println("unknown mode " + mode);
                    System.exit(64);
            }
        }
    }

    private static void publish(final MetaRoce client, final int streamId, final int count)
    {
        final ConcurrentPublication publication = client.addPublication("metaroce:ipc", streamId);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        for (int i = 0; i < count; )
        {
            buffer.putInt(0, i);
            final long result = publication.offer(buffer, 0, 4 + (i % 200));
            if (result > 0)
            {
                i++;
            }
            else if (Publication.ADMIN_ACTION != result)
            {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
            }
        }
        System.out.println("PUBLISHED " + count);
    }

    private static int subscribe(final MetaRoce client, final int streamId, final int count)
    {
        final Subscription subscription = client.addSubscription("metaroce:ipc", streamId);
        System.out.println("READY");
        final int[] next = { 0 };
        final boolean[] inOrder = { true };
        while (next[0] < count && inOrder[0])
        {
            final int polled = subscription.poll((buffer, offset, length, header) ->
            {
                inOrder[0] &= buffer.getInt(offset) == next[0] && length == 4 + (next[0] % 200);
                next[0]++;
            }, 100);
            if (0 == polled)
            {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
            }
        }
        System.out.println((inOrder[0] ? "RECEIVED " : "OUT_OF_ORDER at ") + next[0]);
        return inOrder[0] ? 0 : 2;
    }

    private static void hold(final MetaRoce client, final int streamId) throws InterruptedException
    {
        final ConcurrentPublication publication = client.addPublication("metaroce:ipc", streamId);
        final Subscription subscription = client.addSubscription("metaroce:ipc", streamId);
        final Counter counter = client.addCounter(1000, "held by " + client.clientId());
        while (!subscription.isConnected())
        {
            Thread.sleep(1);
        }
        System.out.println("READY " + client.clientId() + " " + publication.originalRegistrationId() + " " +
            counter.id());
        Thread.sleep(Long.MAX_VALUE);
    }

    private static int awaitDriverTimeout(
        final MetaRoce client, final int streamId, final AtomicReference<Throwable> asyncError)
        throws InterruptedException
    {
        final ConcurrentPublication publication = client.addPublication("metaroce:ipc", streamId);
        System.out.println("READY");
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (null == asyncError.get() && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(1);
        }

        final Throwable error = asyncError.get();
        System.out.println("ASYNC_ERROR " + (null == error ? "none" : error.getClass().getSimpleName()));
        System.out.println("PUBLICATION_CLOSED " + publication.isClosed());
        try
        {
            client.addSubscription("metaroce:ipc", streamId);
            System.out.println("API_DID_NOT_THROW");
            return 3;
        }
        catch (final DriverTimeoutException ex)
        {
            System.out.println("API_THREW DriverTimeoutException: " + ex.getMessage());
            return error instanceof DriverTimeoutException ? 0 : 4;
        }
    }
}
