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
package io.metaroce.client;

import io.metaroce.client.logbuffer.ControlledFragmentHandler;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.client.status.LocalSocketAddress;
import org.agrona.concurrent.status.CountersReader;

import java.util.Arrays;
import java.util.List;

/**
 * Interest in a channel and stream: every publisher on it appears as an {@link Image}, and polling the subscription
 * polls its images round-robin. Images come and go as publishers do; the handlers given when subscribing are told.
 * <p>
 * The image array is copy-on-write: the client conductor replaces it, polls read whichever array is current.
 * Poll from one thread at a time; {@link #close()} from any thread. Allocates nothing when polling.
 */
public final class Subscription implements AutoCloseable
{
    private static final Image[] EMPTY_IMAGES = new Image[0];

    private final ClientConductor conductor;
    private int channelStatusId = CountersReader.NULL_COUNTER_ID;
    private final String channel;
    private final int streamId;
    private final long registrationId;
    private final AvailableImageHandler availableImageHandler;
    private final UnavailableImageHandler unavailableImageHandler;
    private int roundRobinIndex;
    private volatile Image[] images = EMPTY_IMAGES;
    private volatile boolean isClosed;

    Subscription(
        final ClientConductor conductor,
        final String channel,
        final int streamId,
        final long registrationId,
        final AvailableImageHandler availableImageHandler,
        final UnavailableImageHandler unavailableImageHandler)
    {
        this.conductor = conductor;
        this.channel = channel;
        this.streamId = streamId;
        this.registrationId = registrationId;
        this.availableImageHandler = availableImageHandler;
        this.unavailableImageHandler = unavailableImageHandler;
    }

    /**
     * Poll the images for new fragments, starting with a different image each time for fairness.
     *
     * @param fragmentHandler to receive the fragments.
     * @param fragmentLimit   maximum number of fragments to deliver across all images.
     * @return the number of fragments delivered.
     */
    public int poll(final FragmentHandler fragmentHandler, final int fragmentLimit)
    {
        final Image[] images = this.images;
        final int length = images.length;
        int fragmentsRead = 0;

        int startingIndex = roundRobinIndex++;
        if (startingIndex >= length)
        {
            roundRobinIndex = startingIndex = 0;
        }

        for (int i = startingIndex; i < length && fragmentsRead < fragmentLimit; i++)
        {
            fragmentsRead += images[i].poll(fragmentHandler, fragmentLimit - fragmentsRead);
        }

        for (int i = 0; i < startingIndex && fragmentsRead < fragmentLimit; i++)
        {
            fragmentsRead += images[i].poll(fragmentHandler, fragmentLimit - fragmentsRead);
        }

        return fragmentsRead;
    }

    /**
     * Poll the images with a controlled handler, starting with a different image each time for fairness.
     *
     * @param fragmentHandler to receive the fragments and decide how each poll goes on.
     * @param fragmentLimit   maximum number of fragments to consume across all images.
     * @return the number of fragments consumed.
     */
    public int controlledPoll(final ControlledFragmentHandler fragmentHandler, final int fragmentLimit)
    {
        final Image[] images = this.images;
        final int length = images.length;
        int fragmentsRead = 0;

        int startingIndex = roundRobinIndex++;
        if (startingIndex >= length)
        {
            roundRobinIndex = startingIndex = 0;
        }

        for (int i = startingIndex; i < length && fragmentsRead < fragmentLimit; i++)
        {
            fragmentsRead += images[i].controlledPoll(fragmentHandler, fragmentLimit - fragmentsRead);
        }

        for (int i = 0; i < startingIndex && fragmentsRead < fragmentLimit; i++)
        {
            fragmentsRead += images[i].controlledPoll(fragmentHandler, fragmentLimit - fragmentsRead);
        }

        return fragmentsRead;
    }

    /**
     * Is at least one publisher's image attached?
     *
     * @return true when there is something to poll.
     */
    public boolean isConnected()
    {
        for (final Image image : images)
        {
            if (!image.isClosed())
            {
                return true;
            }
        }

        return false;
    }

    /**
     * Number of images attached.
     *
     * @return the image count.
     */
    public int imageCount()
    {
        return images.length;
    }

    /**
     * Snapshot of the images attached.
     *
     * @return an unmodifiable list.
     */
    public List<Image> images()
    {
        return List.of(images);
    }

    /**
     * Image of a publisher session.
     *
     * @param sessionId of the publisher.
     * @return its image, or null when not attached.
     */
    public Image imageBySessionId(final int sessionId)
    {
        for (final Image image : images)
        {
            if (image.sessionId() == sessionId)
            {
                return image;
            }
        }

        return null;
    }

    /**
     * The id of the channel's status counter: the subscription's network endpoint's local socket address counter
     * ({@code CounterTypeId.LOCAL_SOCKET_ADDRESS}), or {@code CountersReader.NULL_COUNTER_ID} for IPC.
     *
     * @return the counter id.
     */
    public int channelStatusId()
    {
        return channelStatusId;
    }

    /**
     * The local addresses the driver bound for this channel, as Aeron's {@code localSocketAddresses()}: for a
     * network channel the receive endpoint's sockets, one {@code address:port} per plane in plane order, with the
     * port the kernel chose when the channel asked for {@code :0} (put them in a publication's {@code endpoint});
     * empty for IPC, and once the endpoint closed.
     *
     * @return the addresses.
     */
    public List<String> localSocketAddresses()
    {
        return LocalSocketAddress.find(conductor.countersReader(), channelStatusId);
    }

    /**
     * Set once, before the subscription is handed to the application, from the driver's answer.
     */
    void channelStatusId(final int counterId)
    {
        channelStatusId = counterId;
    }

    /**
     * Channel of the subscription.
     *
     * @return the channel URI.
     */
    public String channel()
    {
        return channel;
    }

    /**
     * Stream id of the subscription.
     *
     * @return the stream id.
     */
    public int streamId()
    {
        return streamId;
    }

    /**
     * Registration id of the subscription.
     *
     * @return the registration id.
     */
    public long registrationId()
    {
        return registrationId;
    }

    /**
     * Has the subscription been closed?
     *
     * @return true once closed.
     */
    public boolean isClosed()
    {
        return isClosed;
    }

    /**
     * Release the subscription and its images.
     */
    public void close()
    {
        conductor.releaseSubscription(this);
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return "Subscription{registrationId=" + registrationId + ", streamId=" + streamId + ", channel=" + channel +
            ", images=" + images.length + ", isClosed=" + isClosed + '}';
    }

    AvailableImageHandler availableImageHandler()
    {
        return availableImageHandler;
    }

    UnavailableImageHandler unavailableImageHandler()
    {
        return unavailableImageHandler;
    }

    boolean containsImage(final long correlationId)
    {
        for (final Image image : images)
        {
            if (image.correlationId() == correlationId)
            {
                return true;
            }
        }

        return false;
    }

    void addImage(final Image image)
    {
        final Image[] oldImages = images;
        final Image[] newImages = Arrays.copyOf(oldImages, oldImages.length + 1);
        newImages[oldImages.length] = image;
        images = newImages;
    }

    Image removeImage(final long correlationId)
    {
        final Image[] oldImages = images;
        for (int i = 0; i < oldImages.length; i++)
        {
            final Image image = oldImages[i];
            if (image.correlationId() == correlationId)
            {
                final Image[] newImages = new Image[oldImages.length - 1];
                System.arraycopy(oldImages, 0, newImages, 0, i);
                System.arraycopy(oldImages, i + 1, newImages, i, oldImages.length - i - 1);
                images = newImages;
                image.onUnavailable();
                return image;
            }
        }

        return null;
    }

    Image[] internalClose()
    {
        final Image[] oldImages = images;
        isClosed = true;
        images = EMPTY_IMAGES;
        for (final Image image : oldImages)
        {
            image.close();
        }

        return oldImages;
    }
}
