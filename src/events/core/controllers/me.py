"""The caller's own lists: GET /me/tickets, /me/rsvps, /me/waitlist (order: events.core.selectors.me)."""

from django.db.models import QuerySet
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate
from ninja_jwt.authentication import JWTAuth

from accounts.controllers.base import CallerController
from common.api import Pagination
from events.core.schemas.me import MyRSVPSchema, MyTicketSchema, MyWaitlistEntrySchema
from events.core.selectors import me as me_selectors
from events.models import EventRSVP, EventWaitList, Ticket


@api_controller("/me", auth=JWTAuth(), tags=["me"])
class MyListsController(CallerController):
    @route.get("/tickets", response=PaginatedResponseSchema[MyTicketSchema])
    @paginate(Pagination)
    def my_tickets(self) -> QuerySet[Ticket]:
        return me_selectors.my_tickets(self._caller())

    @route.get("/rsvps", response=PaginatedResponseSchema[MyRSVPSchema])
    @paginate(Pagination)
    def my_rsvps(self) -> QuerySet[EventRSVP]:
        return me_selectors.my_rsvps(self._caller())

    @route.get("/waitlist", response=PaginatedResponseSchema[MyWaitlistEntrySchema])
    @paginate(Pagination)
    def my_waitlist(self) -> QuerySet[EventWaitList]:
        return me_selectors.my_waitlist(self._caller())


CONTROLLERS = [MyListsController]
