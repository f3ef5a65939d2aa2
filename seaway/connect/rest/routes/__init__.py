"""The endpoints of Kafka Connect's REST API, by job, as mixins of the app's ``_ConnectApi``:
each is a plain function of one :class:`~seaway.connect.rest.call.Call`, answered from the
:class:`~seaway.connect.runtime.herder.Herder`."""
