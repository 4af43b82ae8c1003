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

/**
 * A client's registration of a publication: one per add command, several of them may share one (concurrent)
 * publication. Removing the last one releases the publication. Owned by the conductor.
 */
final class PublicationLink
{
    private final long registrationId;
    private final ClientSession client;
    private final IpcPublication publication;
    private final NetworkPublication networkPublication;

    PublicationLink(final long registrationId, final ClientSession client, final IpcPublication publication)
    {
        this.registrationId = registrationId;
        this.client = client;
        this.publication = publication;
        this.networkPublication = null;
    }

    PublicationLink(final long registrationId, final ClientSession client, final NetworkPublication publication)
    {
        this.registrationId = registrationId;
        this.client = client;
        this.publication = null;
        this.networkPublication = publication;
    }

    /**
     * Release this registration's hold on its publication, IPC or network.
     */
    void release(final long nowNs)
    {
        if (null != publication)
        {
            publication.decRef(nowNs);
        }
        else
        {
            networkPublication.decRef(nowNs);
        }
    }

    long registrationId()
    {
        return registrationId;
    }

    ClientSession client()
    {
        return client;
    }

    /**
     * The IPC publication, or null for a network one.
     */
    IpcPublication publication()
    {
        return publication;
    }

    /**
     * The network publication of the link.
     *
     * @return it, or null for an IPC publication's link.
     */
    NetworkPublication networkPublication()
    {
        return networkPublication;
    }
}
