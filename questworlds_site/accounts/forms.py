from django import forms
from django.contrib.auth.forms import UserCreationForm

from .models import User


class SignupForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name")


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ("display_name",)
